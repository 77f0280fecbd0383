// A one-line progress bar on a terminal (nothing when output is piped, so logs stay clean). One
// `\r`-rewritten line needs no dependency.

export interface Progress {
  start(label: string, total: number): void;
  advance(by: number): void;
  done(): void;
}

export const silentProgress: Progress = { start() {}, advance() {}, done() {} };

export function terminalProgress(out: NodeJS.WriteStream): Progress {
  if (!out.isTTY) return silentProgress;
  let label = '';
  let total = 0;
  let count = 0;
  let lastDraw = 0;
  const draw = () => {
    const share = total > 0 ? Math.min(1, count / total) : 1;
    const filled = Math.round(share * 30);
    out.write(`\r${label} [${'#'.repeat(filled)}${'.'.repeat(30 - filled)}] ${count}/${total}`);
  };
  return {
    start(l, t) {
      label = l;
      total = t;
      count = 0;
      draw();
    },
    advance(by) {
      count += by;
      const now = Date.now();
      if (now - lastDraw > 100 || count >= total) {
        lastDraw = now;
        draw();
      }
    },
    done() {
      draw();
      out.write('\n');
    },
  };
}
