// A bounded poll of a condition, for states no event announces (the simulator's ledger, a file).
export async function until(condition: () => boolean, { timeoutMs = 10_000, everyMs = 5 } = {}): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms: ${condition.toString()}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
