// Kinds of work as the money metrics split them: chat and responses rows are `text`, video rows `video`.
// A report group is video when it has a resolution: only video rows are priced by one.
export const MONEY_KINDS = ['text', 'video'] as const;
export type MoneyKind = (typeof MONEY_KINDS)[number];

export function moneyKindOfGroup(group: { resolution: string | null }): MoneyKind {
  return group.resolution === null ? 'text' : 'video';
}
