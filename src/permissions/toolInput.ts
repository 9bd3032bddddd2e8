// A call as denial messages the model reads name it, from what its tool declares it touches.
import type { ToolAccess, ToolKind } from '../../tools/tool.js';

/** A short description of the call: the command it runs, the files it acts on, or the tool's name. */
export function describeCall(toolName: string, kind: ToolKind, access: ToolAccess): string {
  if (kind === 'execute') return `${toolName} (command: ${JSON.stringify(truncate(access.command ?? ''))})`;
  if (kind === 'read' || kind === 'search' || kind === 'edit') {
    return `${toolName} on ${(access.paths?.length ? access.paths : ['.']).join(', ')}`;
  }
  return toolName;
}

function truncate(s: string, max = 200): string {
  return s.length <= max ? s : `${s.slice(0, max)}…`;
}
