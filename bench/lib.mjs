// Helpers every bench script shares.

/** The median of a list of numbers (the upper one of an even count). */
export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Calls `onMessage` with each JSON line a child writes to `stream` (stream-json output). */
export function onJsonLines(stream, onMessage) {
  let buf = '';
  stream.setEncoding('utf8');
  stream.on('data', (c) => {
    buf += c;
    let nl;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      onMessage(JSON.parse(line));
    }
  });
}
