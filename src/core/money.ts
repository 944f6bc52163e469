// Money arithmetic: USD amounts are kept as JS numbers rounded to nano-dollars.

const NANO = 1e9;

/** Rounds to 1e-9 USD (nano-dollars), so sums and comparisons are free of float noise (0.1 + 0.2). */
export function roundUsd(x: number): number {
  if (!Number.isFinite(x)) throw new RangeError(`not a finite USD amount: ${x}`);
  const magnitude = Math.round(Math.abs(x) * NANO) / NANO;
  // `+ 0` turns -0 into 0, so a rounded-away negative prints as "$0".
  return (x < 0 ? -magnitude : magnitude) + 0;
}

/** "$0.414778"; negative amounts as "-$0.100000"; an amount that rounds to zero has no sign. */
export function formatUsd(x: number, digits = 6): string {
  const text = Math.abs(x).toFixed(digits);
  const isZero = /^[0.]*$/.test(text);
  return `${x < 0 && !isZero ? '-' : ''}$${text}`;
}
