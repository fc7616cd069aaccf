// Bounded parallelism: hundreds of hosts must not mean hundreds of simultaneous handshakes from
// one jump host, nor a thousand pods on one API server at once. A slot is held until its holder says
// it is done with the expensive part (for a rank: until it has started, not until it exits).

export interface Limiter {
  /** resolves with a release function once a slot is free */
  acquire(): Promise<() => void>;
  /** runs fn in a slot */
  run<T>(fn: () => Promise<T>): Promise<T>;
}

export function limiter(slots: number): Limiter {
  let free = slots;
  const waiting: Array<() => void> = [];
  const releaser = () => {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const next = waiting.shift();
      if (next) next();
      else free++;
    };
  };
  const acquire = () =>
    new Promise<() => void>((resolve) => {
      if (free > 0) {
        free--;
        resolve(releaser());
      } else waiting.push(() => resolve(releaser()));
    });
  return {
    acquire,
    async run(fn) {
      const release = await acquire();
      try {
        return await fn();
      } finally {
        release();
      }
    },
  };
}
