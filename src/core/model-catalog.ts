// Pure: the models a user may name in a manifest, from the pricing table and (when asked) the gateway's
// /v1/models: each model's kind, whether it is priced and listed, and for video the resolutions it is
// priced at and the durations a row may ask for.
import { DEFAULT_VIDEO_SECONDS, MAX_VIDEO_SECONDS, RESOLUTIONS, type Resolution } from './models.js';
import type { PricingTable } from './pricing.js';

export type CatalogKind = 'video' | 'chat' | 'unpriced';

export interface VideoDurations {
  minSeconds: number;
  maxSeconds: number;
  defaultSeconds: number;
}

export interface CatalogModel {
  id: string;
  /** From the pricing table; `unpriced`: only the gateway lists it, so plan and run refuse its rows. */
  kind: CatalogKind;
  priced: boolean;
  /** On the gateway's list; null when the gateway's list was not read. */
  onGateway: boolean | null;
  /** Video: the resolutions the pricing table prices, in the spec's order; empty otherwise. */
  resolutions: Resolution[];
  /** Video: the spec's accepted range (section 8; a model may narrow it); null otherwise. */
  durations: VideoDurations | null;
}

const VIDEO_DURATIONS: VideoDurations = {
  minSeconds: 0,
  maxSeconds: MAX_VIDEO_SECONDS,
  defaultSeconds: DEFAULT_VIDEO_SECONDS,
};

/**
 * Every model of the pricing table, then those only the gateway lists; `gatewayIds` undefined when the
 * gateway's list was not read. Sorted by kind (video, chat, unpriced), then id.
 */
export function modelCatalog(pricing: PricingTable, gatewayIds: readonly string[] | undefined): CatalogModel[] {
  const listed = gatewayIds === undefined ? undefined : new Set(gatewayIds);
  const onGateway = (id: string): boolean | null => (listed === undefined ? null : listed.has(id));
  const video = Object.keys(pricing.video).map((id): CatalogModel => ({
    id,
    kind: 'video',
    priced: true,
    onGateway: onGateway(id),
    resolutions: RESOLUTIONS.filter((r) => pricing.video[id]?.[r] !== undefined),
    durations: VIDEO_DURATIONS,
  }));
  const chat = Object.keys(pricing.chat)
    .filter((id) => !Object.hasOwn(pricing.video, id))
    .map((id): CatalogModel => ({
      id,
      kind: 'chat',
      priced: true,
      onGateway: onGateway(id),
      resolutions: [],
      durations: null,
    }));
  const priced = new Set([...video, ...chat].map((m) => m.id));
  const unpriced = [...new Set(gatewayIds ?? [])]
    .filter((id) => !priced.has(id))
    .map((id): CatalogModel => ({
      id,
      kind: 'unpriced',
      priced: false,
      onGateway: true,
      resolutions: [],
      durations: null,
    }));
  const byId = (a: CatalogModel, b: CatalogModel): number => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  return [...video.sort(byId), ...chat.sort(byId), ...unpriced.sort(byId)];
}
