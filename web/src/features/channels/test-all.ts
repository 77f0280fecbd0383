// "Test all channels" with progress: the console tests the channels one request each, a
// few at a time, so the operator sees how far the run is and which channels failed.

export interface TestProgress {
  done: number;
  total: number;
  failed: number[];
}

export async function testChannels(
  ids: readonly number[],
  testOne: (id: number) => Promise<boolean>,
  onProgress: (progress: TestProgress) => void,
  options: { concurrency?: number; signal?: AbortSignal } = {},
): Promise<TestProgress> {
  const progress: TestProgress = { done: 0, total: ids.length, failed: [] };
  onProgress({ ...progress, failed: [] });
  let next = 0;
  const worker = async () => {
    while (next < ids.length && !options.signal?.aborted) {
      const id = ids[next++] as number;
      let ok = false;
      try {
        ok = await testOne(id);
      } catch {
        ok = false;
      }
      progress.done += 1;
      if (!ok) progress.failed.push(id);
      onProgress({ ...progress, failed: [...progress.failed] });
    }
  };
  await Promise.all(Array.from({ length: Math.min(options.concurrency ?? 3, ids.length) }, worker));
  return progress;
}

/** Response time coloured by speed: milliseconds to a colour of the theme. */
export function responseTimeColor(ms: number): 'default' | 'success' | 'primary' | 'warning' | 'error' {
  if (ms <= 0) return 'default';
  if (ms <= 1000) return 'success';
  if (ms <= 3000) return 'primary';
  if (ms <= 5000) return 'warning';
  return 'error';
}
