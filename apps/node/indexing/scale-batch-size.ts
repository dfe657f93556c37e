/** --scale-batch-size: halve the batch under memory pressure, grow it back towards --batch-size when there is room. */
export function scaleBatchSize(current: number, settings: { batchSize: number; memoryPressure?: () => number }): number {
  if (settings.memoryPressure === undefined) return settings.batchSize;
  const pressure = settings.memoryPressure();
  if (pressure > 0.7) return Math.max(1, Math.floor(current / 2));
  if (pressure < 0.4) return Math.min(settings.batchSize, current * 2);
  return current;
}
