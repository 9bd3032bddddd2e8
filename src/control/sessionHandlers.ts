// Control requests about the session's files and context: rewind_files (file checkpoints),
// get_context_usage, read_file, seed_read_state. Each answers or throws a message that says what
// is wrong; the channel turns a throw into an error response.
import type { z } from 'zod';
import {
  getContextUsageRequestSchema,
  readFileRequestSchema,
  rewindFilesRequestSchema,
  seedReadStateRequestSchema,
} from '../protocol/inbound.js';
import type { ControlChannel } from './channel.js';
import { parseControlRequest } from './parseRequest.js';

export interface SessionControlTarget {
  rewindFiles(userMessageId: string, dryRun: boolean): Promise<unknown>;
  contextUsage(detail: 'summary' | 'full'): unknown;
  readFile(req: z.infer<typeof readFileRequestSchema>): Promise<unknown>;
  seedReadState(path: string, mtime: number): Promise<void>;
}

export function registerSessionControlHandlers(channel: ControlChannel, target: SessionControlTarget): void {
  channel.on('rewind_files', (req) => {
    const r = parseControlRequest(rewindFilesRequestSchema, req, 'rewind_files');
    return target.rewindFiles(r.user_message_id, r.dry_run ?? false);
  });
  channel.on('get_context_usage', (req) =>
    target.contextUsage(
      parseControlRequest(getContextUsageRequestSchema, req, 'get_context_usage').detail ?? 'summary',
    ),
  );
  channel.on('read_file', (req) => target.readFile(parseControlRequest(readFileRequestSchema, req, 'read_file')));
  channel.on('seed_read_state', async (req) => {
    const r = parseControlRequest(seedReadStateRequestSchema, req, 'seed_read_state');
    await target.seedReadState(r.path, r.mtime);
    return {};
  });
}
