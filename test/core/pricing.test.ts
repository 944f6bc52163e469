import { describe, expect, it } from 'vitest';
import { BUILTIN_PRICING, chatRate, parsePricing, videoRate } from '../../src/core/pricing.js';

// The runner contract's example pricing file, with its elided entries filled in.
const CONTRACT_EXAMPLE = `{
  "group_ratio": 1,
  "video": { "my-video": { "480p": {"ref": 2.2647, "noref": 3.8088}, "720p": {"ref": 2.2647, "noref": 3.8088},
                           "1080p": {"ref": 2.5221, "noref": 4.3235}, "4k": {"ref": 1.7647, "noref": 2.8676} } },
  "chat":  { "my-chat": { "input_per_1m": 0.15, "output_per_1m": 0.60 } }
}`;

describe('parsePricing', () => {
  it("accepts the contract's example", () => {
    const table = parsePricing(CONTRACT_EXAMPLE, 'prices.json');
    expect(table.group_ratio).toBe(1);
    expect(videoRate(table, 'my-video', '4k', false)).toBe(2.8676);
    expect(videoRate(table, 'my-video', '720p', true)).toBe(2.2647);
    expect(chatRate(table, 'my-chat')).toEqual({ input_per_1m: 0.15, output_per_1m: 0.6 });
  });

  it('defaults group_ratio to 1 and missing sections to empty', () => {
    expect(parsePricing('{}', 'p.json')).toEqual({ group_ratio: 1, video: {}, chat: {} });
  });

  it.each([
    ['a negative rate', '{"video":{"m":{"720p":{"ref":-1,"noref":2}}}}', /p\.json.*video\.m\.720p\.ref/],
    ['a rate given as a string', '{"video":{"m":{"720p":{"ref":"1","noref":2}}}}', /p\.json.*video\.m\.720p\.ref/],
    ['a missing chat rate', '{"chat":{"c":{"input_per_1m":1}}}', /p\.json.*chat\.c\.output_per_1m/],
    ['an unknown resolution', '{"video":{"m":{"2k":{"ref":1,"noref":2}}}}', /p\.json.*video\.m.*2k/],
    ['a zero group ratio', '{"group_ratio":0}', /p\.json.*group_ratio/],
    ['an unknown top-level field', '{"groupratio":1}', /p\.json.*groupratio/],
    ['a non-object', '[]', /p\.json/],
    ['bad JSON', '{"video": {', /p\.json.*not valid JSON/],
  ])('rejects %s, naming the file and the field', (_what, text, message) => {
    expect(() => parsePricing(text, 'p.json')).toThrow(message);
  });
});

describe('BUILTIN_PRICING', () => {
  // Spec 8.2, USD per 1,000,000 final total_tokens: [model, resolution, with ref, without ref].
  const SPEC_TABLE = [
    ['video-fast', '480p', 2.2647, 3.8088],
    ['video-fast', '720p', 2.2647, 3.8088],
    ['video-fast', '1080p', 2.5221, 4.3235],
    ['video-mini', '480p', 1.0294, 1.6912],
    ['video-mini', '720p', 1.0294, 1.6912],
    ['video-mini', '1080p', 1.1397, 1.875],
    ['video-pro', '480p', 3.0882, 5.0735],
    ['video-pro', '720p', 3.0882, 5.0735],
    ['video-pro', '1080p', 3.4191, 5.625],
    ['video-pro', '4k', 1.7647, 2.8676],
    ['video-pro-2.5', '720p', 4.9412, 8.2353],
    ['video-pro-2.5', '1080p', 5.4706, 9.0588],
  ] as const;

  it.each(SPEC_TABLE)('%s %s: ref %d, no ref %d', (model, resolution, ref, noref) => {
    expect(videoRate(BUILTIN_PRICING, model, resolution, true)).toBe(ref);
    expect(videoRate(BUILTIN_PRICING, model, resolution, false)).toBe(noref);
  });

  it('prices no other model or resolution (spec 8.1)', () => {
    const listed = Object.entries(BUILTIN_PRICING.video)
      .flatMap(([model, byResolution]) => Object.keys(byResolution).map((r) => `${model} ${r}`))
      .sort();
    expect(listed).toEqual(SPEC_TABLE.map(([model, r]) => `${model} ${r}`).sort());
  });

  it("has the contract's chat rates and group ratio 1", () => {
    expect(BUILTIN_PRICING.group_ratio).toBe(1);
    expect(BUILTIN_PRICING.chat).toEqual({
      'chat-small': { input_per_1m: 0.15, output_per_1m: 0.6 },
      'chat-large': { input_per_1m: 2.5, output_per_1m: 10 },
    });
  });
});
