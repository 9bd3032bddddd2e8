// A transport to one of the host's in-process MCP servers (the SDK's createSdkMcpServer): every
// JSON-RPC message goes to the host as a control_request `mcp_message {server_name, message}`.
// A request's answer comes back in the control_response as `mcp_response` and is handed to the
// client; a notification's answer is only an acknowledgement. A failed control request becomes a
// JSON-RPC error for the request it carried, so the waiting MCP call fails instead of hanging.
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { ManifestReplay } from './hostManifests.js';

/** What the transport needs of the control channel (src/control/channel.ts `request`). */
export type HostRequest = (
  subtype: string,
  payload: Record<string, unknown>,
  opts: { timeoutMs: number },
) => Promise<unknown>;

export class HostMcpTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private closed = false;

  constructor(
    private readonly serverName: string,
    private readonly request: HostRequest,
    /** Upper bound for one round trip; the MCP client's own request timeouts come first. */
    private readonly timeoutMs: number,
    /** The handshake the host already ran (initialize.sdkMcpServerManifests), answered locally. */
    private readonly replay?: ManifestReplay,
  ) {}

  async start(): Promise<void> {}

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) throw new Error(`MCP server ${this.serverName}: the connection is closed`);
    const local = this.replay?.local(message);
    if (local !== undefined) {
      // Delivered after send() returns, as an answer from the host would be.
      if (local) queueMicrotask(() => !this.closed && this.onmessage?.(local));
      return;
    }
    const id = 'id' in message && 'method' in message ? message.id : undefined;
    const answer = this.request(
      'mcp_message',
      { server_name: this.serverName, message },
      { timeoutMs: this.timeoutMs },
    );
    // Not awaited: the answer arrives later and is delivered like any incoming message.
    answer.then(
      (response) => {
        if (id === undefined || this.closed) return;
        const reply = (response as { mcp_response?: JSONRPCMessage } | null)?.mcp_response;
        if (reply && typeof reply === 'object') this.onmessage?.(reply);
        else this.fail(id, 'the host answered without an mcp_response');
      },
      (err: Error) => {
        if (id === undefined) this.onerror?.(err);
        else this.fail(id, err.message);
      },
    );
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.();
  }

  private fail(id: string | number, message: string): void {
    if (this.closed) return;
    this.onmessage?.({
      jsonrpc: '2.0',
      id,
      error: { code: -32603, message: `host MCP server ${this.serverName}: ${message}` },
    });
  }
}
