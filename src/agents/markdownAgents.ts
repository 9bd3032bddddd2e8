// Custom agents from `.claude/agents/*.md`: YAML front matter (name, description, tools as a
// comma list, model) and a body that is the agent's system prompt. The front matter is parsed
// with `yaml`, so quoting, colons and folded descriptions work as they do in any YAML file. The
// yaml module loads only when an agent file exists: most starts have none and need not evaluate it.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentDef, AgentSource } from './definitions.js';
import { splitFrontMatter } from '../util/frontMatter.js';

export type YamlParse = (text: string) => unknown;

export interface AgentFileProblem {
  file: string;
  problem: string;
}

function listOf(value: unknown): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (Array.isArray(value))
    return value
      .map(String)
      .map((s) => s.trim())
      .filter(Boolean);
  return String(value)
    .split(/[,\s]+/)
    .map((s) => s.trim())
    .filter(Boolean);
}

/** Parse one agent file's text; throws with a readable reason. */
export function parseAgentMarkdown(
  text: string,
  source: AgentSource,
  fallbackName: string | undefined,
  parseYaml: YamlParse,
): AgentDef {
  const { meta: f, body } = splitFrontMatter(text, parseYaml, { required: true });
  const name = typeof f.name === 'string' && f.name.trim() ? f.name.trim() : fallbackName;
  if (!name) throw new Error('front matter has no name');
  if (typeof f.description !== 'string' || !f.description.trim()) throw new Error('front matter has no description');
  const tools = listOf(f.tools);
  const disallowed = listOf(f.disallowedTools);
  const model = typeof f.model === 'string' && f.model.trim() ? f.model.trim() : undefined;
  const maxTurns =
    typeof f.maxTurns === 'number' && Number.isInteger(f.maxTurns) && f.maxTurns > 0 ? f.maxTurns : undefined;
  return {
    name,
    description: f.description.trim(),
    prompt: body,
    ...(tools ? { tools } : {}),
    ...(disallowed ? { disallowedTools: disallowed } : {}),
    ...(model ? { model } : {}),
    ...(maxTurns ? { maxTurns } : {}),
    source,
  };
}

/** Every `*.md` agent in `dir` (missing dir → none). Bad files are skipped and reported. */
export async function loadAgentDir(
  dir: string,
  source: AgentSource,
): Promise<{ agents: AgentDef[]; problems: AgentFileProblem[] }> {
  const agents: AgentDef[] = [];
  const problems: AgentFileProblem[] = [];
  let names: string[];
  try {
    names = readdirSync(dir)
      .filter((n) => n.endsWith('.md'))
      .sort();
  } catch {
    return { agents, problems };
  }
  if (names.length === 0) return { agents, problems };
  const { parse } = await import('yaml');
  for (const n of names) {
    const file = join(dir, n);
    try {
      agents.push(parseAgentMarkdown(readFileSync(file, 'utf8'), source, n.slice(0, -3), parse));
    } catch (err) {
      problems.push({ file, problem: (err as Error).message });
    }
  }
  return { agents, problems };
}
