// The syntax highlighter (lowlight: highlight.js's grammars giving a tree, not HTML), in a chunk of
// its own that highlight.ts imports when the first code block shows up: the grammars are most of
// the UI's weight, and most sessions' first frame does not need them.
import { common, createLowlight } from 'lowlight';
import type { Segment } from './highlight.js';

const lowlight = createLowlight(common);

/** Other names people put after ``` for the languages the grammars know. */
const ALIASES: Record<string, string> = { sh: 'bash', shell: 'bash', zsh: 'bash', console: 'bash', jsx: 'javascript' };

interface HastNode {
  type: string;
  value?: string;
  properties?: { className?: unknown };
  children?: HastNode[];
}

/** The code's lines as coloured segments; undefined for a language the grammars do not know. */
export function highlightLines(code: string, lang: string): Segment[][] | undefined {
  const name = ALIASES[lang.toLowerCase()] ?? lang.toLowerCase();
  if (!name || !lowlight.registered(name)) return undefined;
  const tree = lowlight.highlight(name, code) as unknown as HastNode;
  const lines: Segment[][] = [[]];
  const walk = (node: HastNode, cls: string | undefined) => {
    if (node.type === 'text' && node.value !== undefined) {
      node.value.split('\n').forEach((part, i) => {
        if (i > 0) lines.push([]);
        if (part) lines[lines.length - 1].push(cls ? { text: part, cls } : { text: part });
      });
      return;
    }
    const names = node.properties?.className;
    const own = Array.isArray(names) ? names.find((c) => typeof c === 'string' && c.startsWith('hljs-')) : undefined;
    for (const child of node.children ?? []) walk(child, own ? String(own).slice(5) : cls);
  };
  walk(tree, undefined);
  return lines;
}
