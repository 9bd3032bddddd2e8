// Monitors (tools/monitor.ts): a shell command as a background task whose stdout lines are events.
// Lines that come within BATCH_MS of each other make one event; each event is a notice the runner
// hands the model between turns (TaskRegistry.event). Everything the command prints also goes to
// the task's output file. A monitor whose events pile up unread is stopped: it floods the session.
import { closeSync, openSync, writeSync } from 'node:fs';
import type { MonitorService } from '../../tools/monitor.js';
import { runBashCommand } from '../../tools/bashRun.js';
import { exitCodeOf } from '../util/exitCode.js';
import { loadUndici } from '../net/undici.js';
import type { TaskRegistry } from './registry.js';

export const BATCH_MS = 200;
/** Events waiting for the model past this stop the monitor. */
export const MAX_PENDING_EVENTS = 50;
/** One event's text is cut past this. */
const MAX_EVENT_CHARS = 4000;
const MAX_FILE_BYTES = 16 * 1024 * 1024;

export function createMonitorService(registry: TaskRegistry, opts: { maxPendingEvents?: number } = {}): MonitorService {
  const maxPending = opts.maxPendingEvents ?? MAX_PENDING_EVENTS;
  return {
    start(command, o) {
      const rec = registry.register('local_bash', {
        description: o.description,
        toolUseId: o.toolUseId,
        command,
        monitor: true,
      });
      const label = `Monitor "${o.description}"`;
      const fd = openSync(rec.outputFile, 'w', 0o600);
      let written = 0;
      const record = (text: string) => {
        if (written >= MAX_FILE_BYTES) return;
        const buf = Buffer.from(text);
        writeSync(fd, buf);
        written += buf.length;
      };
      let events = 0;
      let partial = '';
      let batch: string[] = [];
      let timer: NodeJS.Timeout | undefined;
      let flooded = false;
      const flush = () => {
        timer = undefined;
        if (!batch.length) return;
        let text = batch.join('\n');
        batch = [];
        if (text.length > MAX_EVENT_CHARS)
          text = `${text.slice(0, MAX_EVENT_CHARS)}\n[… ${text.length - MAX_EVENT_CHARS} characters cut]`;
        events++;
        registry.event(rec.id, `${label} event`, text);
        if (registry.pendingEvents(rec.id) > maxPending) {
          flooded = true;
          rec.abort.abort();
        }
      };
      const onStdout = (chunk: string) => {
        partial += chunk;
        const lines = partial.split('\n');
        partial = lines.pop() ?? '';
        const fresh = lines.map((l) => l.replace(/\r$/, '')).filter((l) => l.trim() !== '');
        if (!fresh.length) return;
        batch.push(...fresh);
        timer ??= setTimeout(flush, BATCH_MS);
      };
      void runBashCommand(command, {
        sandbox: o.sandbox,
        commandId: o.toolUseId || rec.id,
        cwd: o.cwd,
        signal: rec.abort.signal,
        timeoutMs: o.timeoutMs,
        maxOutputChars: 4096,
        onOutput: (chunk, stream) => {
          record(chunk);
          if (stream === 'stdout') onStdout(chunk);
        },
      }).then(
        (r) => {
          if (partial.trim()) batch.push(partial);
          partial = '';
          clearTimeout(timer);
          flush();
          const code = exitCodeOf(r.exitCode, r.signal);
          const count = `${events} event${events === 1 ? '' : 's'}`;
          if (flooded) {
            record(`\n[stopped: more than ${maxPending} events waited unread]\n`);
            registry.finish(rec.id, {
              status: 'stopped',
              summary: `${label} was stopped: it printed more events than can be read (${count}); start it again with a tighter filter`,
              exitCode: r.exitCode,
            });
          } else if (r.timedOut) {
            record(`\n[expired after ${o.timeoutMs} ms]\n`);
            registry.finish(rec.id, {
              status: 'completed',
              summary: `${label} expired after ${Math.round(o.timeoutMs / 1000)} s with ${count}; start it again if the watch is still needed`,
              exitCode: r.exitCode,
            });
          } else if (r.aborted) {
            record('\n[stopped]\n');
            registry.finish(rec.id, {
              status: 'stopped',
              summary: `${label} was stopped (${count})`,
              exitCode: r.exitCode,
            });
          } else {
            record(`\n[exited with code ${code}]\n`);
            registry.finish(rec.id, {
              status: code === 0 ? 'completed' : 'failed',
              summary: `${label} ended: its command exited with code ${code} after ${count}`,
              exitCode: code,
            });
          }
          closeSync(fd);
        },
        (err: unknown) => {
          clearTimeout(timer);
          record(`\n[failed: ${err instanceof Error ? err.message : String(err)}]\n`);
          closeSync(fd);
          registry.finish(rec.id, { status: 'failed', summary: `${label} failed to start` });
        },
      );
      return { taskId: rec.id, outputFile: rec.outputFile };
    },

    startWs(ws, o) {
      const rec = registry.register('local_bash', {
        description: o.description,
        toolUseId: o.toolUseId,
        monitor: true,
      });
      const label = `Monitor "${o.description}"`;
      const fd = openSync(rec.outputFile, 'w', 0o600);
      let written = 0;
      const record = (text: string) => {
        if (written >= MAX_FILE_BYTES) return;
        const buf = Buffer.from(text);
        writeSync(fd, buf);
        written += buf.length;
      };
      let events = 0;
      let ended = false;
      let why: 'flood' | 'timeout' | 'stop' | undefined;
      const event = (text: string) => {
        record(`${text}\n`);
        if (text.length > MAX_EVENT_CHARS)
          text = `${text.slice(0, MAX_EVENT_CHARS)}\n[… ${text.length - MAX_EVENT_CHARS} characters cut]`;
        events++;
        registry.event(rec.id, `${label} event`, text);
        if (registry.pendingEvents(rec.id) > maxPending) close('flood');
      };
      const finish = (code: number | undefined, reason: string) => {
        if (ended) return;
        ended = true;
        clearTimeout(timer);
        const count = `${events} event${events === 1 ? '' : 's'}`;
        record(`\n[closed${code !== undefined ? ` with code ${code}` : ''}${reason ? `: ${reason}` : ''}]\n`);
        closeSync(fd);
        if (why === 'flood')
          registry.finish(rec.id, {
            status: 'stopped',
            summary: `${label} was stopped: it sent more events than can be read (${count}); watch a filtered feed instead`,
          });
        else if (why === 'timeout')
          registry.finish(rec.id, {
            status: 'completed',
            summary: `${label} expired after ${Math.round(o.timeoutMs / 1000)} s with ${count}; start it again if the watch is still needed`,
          });
        else if (why === 'stop')
          registry.finish(rec.id, { status: 'stopped', summary: `${label} was stopped (${count})` });
        else
          registry.finish(rec.id, {
            status: code === 1000 ? 'completed' : 'failed',
            summary: `${label} ended: the socket closed with code ${code ?? 'none'}${reason ? ` (${reason})` : ''} after ${count}`,
          });
      };
      let socket: { close(code?: number): void } | undefined;
      const close = (reason: 'flood' | 'timeout' | 'stop') => {
        why ??= reason;
        try {
          socket?.close(1000);
        } catch {
          /* already closing */
        }
        // A socket that does not close in time is ended anyway.
        setTimeout(() => finish(undefined, ''), 2000).unref();
      };
      const timer = setTimeout(() => close('timeout'), o.timeoutMs);
      rec.abort.signal.addEventListener('abort', () => close('stop'), { once: true });
      try {
        // undici is kept out of the CLI's bundle and loaded only when a session needs it.
        const { WebSocket } = loadUndici();
        const s = new WebSocket(ws.url, ws.protocols ?? []);
        socket = s;
        s.binaryType = 'arraybuffer';
        s.addEventListener('message', (e) => {
          const data = e.data as unknown;
          if (typeof data === 'string') event(data);
          else event(`[binary frame, ${(data as ArrayBuffer).byteLength} bytes]`);
        });
        s.addEventListener('error', (e) => {
          const err = (e as { error?: unknown }).error;
          event(`[socket error: ${err instanceof Error ? err.message : 'the connection failed'}]`);
        });
        s.addEventListener('close', (e) => finish(e.code, e.reason));
      } catch (err) {
        finish(undefined, `could not open: ${(err as Error).message}`);
      }
      return { taskId: rec.id, outputFile: rec.outputFile };
    },
  };
}
