import { createServer } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';

export interface ProxyUse {
  /** `connect`: a CONNECT tunnel (relayed); `forward`: an absolute-URI request (refused with 405). */
  kind: 'forward' | 'connect';
  /** host:port the client asked for. */
  target: string;
}

export interface RecordingProxy {
  /** http://127.0.0.1:PORT */
  url: string;
  /** Every use, in order. */
  uses: ProxyUse[];
  close(): Promise<void>;
}

/** A local HTTP proxy that opens CONNECT tunnels and records every use. */
export async function startRecordingProxy(): Promise<RecordingProxy> {
  const uses: ProxyUse[] = [];
  const sockets = new Set<Socket>();
  // undici tunnels every proxied request with CONNECT; an absolute-URI request is recorded and refused,
  // so a client that starts forwarding instead shows up in the test rather than half-working.
  const server = createServer((req, res) => {
    uses.push({ kind: 'forward', target: req.headers.host ?? '' });
    res.writeHead(405).end();
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('connect', (req, client: Socket, head: Buffer) => {
    const target = req.url ?? '';
    uses.push({ kind: 'connect', target });
    const colon = target.lastIndexOf(':');
    const upstream = connect(Number(target.slice(colon + 1)), target.slice(0, colon), () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  let closing: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    uses,
    close() {
      closing ??= new Promise<void>((done) => {
        server.close(() => done());
        for (const socket of sockets) socket.destroy();
      });
      return closing;
    },
  };
}
