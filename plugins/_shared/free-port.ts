// A rendezvous port on this machine, for platforms whose rank 0 listens here (local, a local docker engine).
import { createServer } from "node:net";

/** A port nothing listens on at 127.0.0.1 (the kernel picks one). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}
