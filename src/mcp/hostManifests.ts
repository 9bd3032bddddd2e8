// initialize.sdkMcpServerManifests: the host has already run the MCP handshake with its in-process
// servers (initialize, notifications/initialized, tools/list) and sends us the results, so our
// client's `initialize` and first `tools/list` for such a server are answered from them instead of
// costing a control round trip each. tools/call and everything after the handshake still go to
// the host as mcp_message. An entry is used by the connect that follows its initialize only.
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { lazySchema } from '../util/lazySchema.js';

/**
 * The MCP protocol version our client asks for (the MCP SDK's LATEST_PROTOCOL_VERSION; a unit test
 * keeps them equal). Written here so the initialize answer does not load the MCP SDK.
 */
export const CLIENT_PROTOCOL_VERSION = '2025-11-25';

const manifestSchema = lazySchema(() =>
  z.object({
    initializeResult: z.record(z.string(), z.unknown()),
    toolsListResult: z.record(z.string(), z.unknown()).optional(),
  }),
);
export type HostManifest = z.infer<typeof manifestSchema>;

/** What became of one entry: the answer's `sdk_mcp_manifests_parked` (the SDK's own words). */
export type ManifestVerdict = 'parked' | 'already_connected' | 'protocol_version_mismatch' | 'malformed';

/**
 * Sort the entries of `raw` for the servers this initialize names: the ones to use, and a verdict
 * for every named server that has an entry (every named server is `malformed` when `raw` is not an
 * object). Entries for servers not named are left out, as the SDK's types say.
 */
export function parkManifests(
  raw: unknown,
  names: string[],
  isConnected: (name: string) => boolean,
): { parked: Map<string, HostManifest>; verdicts: Record<string, ManifestVerdict> } {
  const parked = new Map<string, HostManifest>();
  const verdicts: Record<string, ManifestVerdict> = {};
  const isObject = raw !== null && typeof raw === 'object' && !Array.isArray(raw);
  for (const name of names) {
    if (!isObject) {
      verdicts[name] = 'malformed';
      continue;
    }
    if (!Object.hasOwn(raw, name)) continue;
    const entry = manifestSchema.safeParse((raw as Record<string, unknown>)[name]);
    if (!entry.success) verdicts[name] = 'malformed';
    else if (isConnected(name)) verdicts[name] = 'already_connected';
    else if (entry.data.initializeResult.protocolVersion !== CLIENT_PROTOCOL_VERSION)
      verdicts[name] = 'protocol_version_mismatch';
    else {
      verdicts[name] = 'parked';
      parked.set(name, entry.data);
    }
  }
  return { parked, verdicts };
}

/**
 * Answers a client's handshake messages from a manifest, once: `initialize` (when it asks for the
 * manifest's protocol version), then `notifications/initialized` (already delivered by the host:
 * swallowed) and the first uncursored `tools/list`. `local` returns the reply to hand the client,
 * null for a message that needs no reply, or undefined when the message must go to the host.
 */
export class ManifestReplay {
  private initialized = false;
  private done = false;

  constructor(private readonly manifest: HostManifest) {}

  local(message: JSONRPCMessage): JSONRPCMessage | null | undefined {
    if (this.done || !('method' in message)) return undefined;
    const id = 'id' in message ? message.id : undefined;
    if (message.method === 'initialize' && id !== undefined && !this.initialized) {
      const asked = (message.params as { protocolVersion?: unknown } | undefined)?.protocolVersion;
      if (asked !== this.manifest.initializeResult.protocolVersion) {
        this.done = true;
        return undefined;
      }
      this.initialized = true;
      return { jsonrpc: '2.0', id, result: this.manifest.initializeResult };
    }
    if (!this.initialized) return undefined;
    if (message.method === 'notifications/initialized' && id === undefined) return null;
    if (message.method === 'tools/list' && id !== undefined) {
      this.done = true;
      const tools = this.manifest.toolsListResult;
      if (!tools || (message.params as { cursor?: unknown } | undefined)?.cursor !== undefined) return undefined;
      return { jsonrpc: '2.0', id, result: tools };
    }
    return undefined;
  }
}
