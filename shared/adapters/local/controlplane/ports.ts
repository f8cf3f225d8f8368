// Free loopback ports, chosen by the kernel (bind :0) so parallel control planes do not collide.
import net from 'node:net';

function freePort(): Promise<{ port: number; server: net.Server }> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: 0, exclusive: true }, () => {
      const address = server.address();
      if (address === null || typeof address === 'string') {
        server.close();
        reject(new Error('listening on 127.0.0.1:0 gave no port'));
        return;
      }
      resolve({ port: address.port, server });
    });
  });
}

/**
 * `count` distinct free ports. All are held open until every one is picked, so the kernel cannot
 * hand out the same port twice; they are released just before the components bind them (a small,
 * unavoidable window in which another process could take one).
 */
export async function freePorts(count: number): Promise<number[]> {
  const held: net.Server[] = [];
  try {
    const ports: number[] = [];
    for (let i = 0; i < count; i += 1) {
      const { port, server } = await freePort();
      held.push(server);
      ports.push(port);
    }
    return ports;
  } finally {
    await Promise.all(held.map((server) => new Promise((resolve) => server.close(resolve))));
  }
}

/** Whether nothing listens on `port` of 127.0.0.1 now (so a restarted component can bind it again). */
export function isPortFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen({ host: '127.0.0.1', port, exclusive: true }, () => server.close(() => resolve(true)));
  });
}
