/** The χ² goodness-of-fit test the sampling tests share (test/engine/lossless.test.ts, test/models/replicaLossless.test.ts). */

/** The χ²_df quantile at 1 − 1e-6 (Wilson–Hilferty; z = 4.7534). */
export function chiSquareThreshold(df: number): number {
  const z = 4.7534;
  return df * (1 - 2 / (9 * df) + z * Math.sqrt(2 / (9 * df))) ** 3;
}

/** χ² of the observed counts against the law, pooling the cells expected fewer than 5 times. */
export function chiSquare(counts: Float64Array, law: Float64Array, n: number): { statistic: number; df: number } {
  let statistic = 0;
  let cells = 0;
  let pooledObserved = 0;
  let pooledExpected = 0;
  law.forEach((p, i) => {
    const expected = p * n;
    if (expected < 5) {
      pooledObserved += counts[i] as number;
      pooledExpected += expected;
      return;
    }
    statistic += ((counts[i] as number) - expected) ** 2 / expected;
    cells++;
  });
  if (pooledExpected > 0) {
    statistic += (pooledObserved - pooledExpected) ** 2 / pooledExpected;
    cells++;
  }
  return { statistic, df: cells - 1 };
}
