// A timing or size that tests may shorten through the environment (they cannot wait 30 s for a lease):
// a positive number under `name` replaces the default; anything else leaves it.

export function positiveKnob(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const value = env[name];
  const knob = Number(value);
  return value && Number.isFinite(knob) && knob > 0 ? knob : fallback;
}
