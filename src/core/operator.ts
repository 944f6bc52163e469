// Who made an operator's decision, as the event log keeps it with each row it moved: the operator at a
// terminal (`gbatch cancel`, `retry`, `resolve`), or a dashboard user named by their token.
export interface Operator {
  by: 'operator';
  /** Where the decision was made; absent: the command line. */
  via?: 'ui';
  /** Who, where the tool knows: a dashboard user's token name (a digest prefix, never the token). */
  who?: string;
}

export const COMMAND_LINE: Operator = { by: 'operator' };
