// What ListAgents and SendMessage need to reach other local sessions of the same user
// (`ctx.services.peers`, implemented in src/peers). Kept as an interface here so tools/ does not
// import src/.

/** Another live session on this machine, as a row of ListAgents. */
export interface PeerView {
  /** The address: what SendMessage's `to` takes (with ` [ref]` when two share it). */
  name: string;
  /** A short id that tells two sessions of one name apart. */
  ref: string;
  sessionId: string;
  cwd: string;
  pid: number;
  permissionMode: string;
  startedAt: string;
}

export interface PeerService {
  /** This session's own address. */
  self(): { name: string; ref: string };
  /** The other live sessions (dead ones are dropped from the directory as they are found). */
  list(): PeerView[];
  /** The live session `to` names ("name" or "name [ref]"), or undefined; throws when the name is ambiguous. */
  resolve(to: string): PeerView | undefined;
  /** Deliver a message to a peer's inbox; throws an Error that says why it was not delivered. */
  send(peer: PeerView, text: string): Promise<void>;
}
