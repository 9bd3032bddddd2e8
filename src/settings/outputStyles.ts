// Output styles: how the main agent writes its answers. `default` is the built-in one; custom styles
// are Markdown files in `.claude/output-styles/` (project) and `$CLAUDE_CONFIG_DIR/output-styles/`
// (user), with optional front matter `name`, `description`, `keep-coding-instructions`; the body is
// the instruction text. `Explanatory` and `Learning` are built in (src/settings/builtinOutputStyles.ts);
// a file of the same name replaces one. The `outputStyle` setting picks one; its text joins the
// system prompt.
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { SettingSource } from './load.js';
import { splitFrontMatter } from '../util/frontMatter.js';
import { configDir } from '../util/configDir.js';
import { BUILTIN_STYLES } from './builtinOutputStyles.js';

export const DEFAULT_OUTPUT_STYLE = 'default';

export interface OutputStyle {
  name: string;
  description: string;
  /** The instructions added to the system prompt. */
  prompt: string;
  /** Keep the default prompt's software-engineering instructions beside the style's. */
  keepCodingInstructions: boolean;
  source: 'project' | 'user' | 'builtin';
  /** The style's file ('' for a built-in one). */
  file: string;
}

const BUILTINS: OutputStyle[] = BUILTIN_STYLES.map((s) => ({
  ...s,
  keepCodingInstructions: true,
  source: 'builtin',
  file: '',
}));

/** One style file's text; throws with a readable reason. */
export function parseOutputStyle(
  text: string,
  file: string,
  source: OutputStyle['source'],
  parseYaml: (t: string) => unknown,
): OutputStyle {
  const { meta, body: prompt } = splitFrontMatter(text, parseYaml);
  if (!prompt) throw new Error('the style has no instructions (the file body is empty)');
  const str = (k: string) =>
    typeof meta[k] === 'string' && (meta[k] as string).trim() ? (meta[k] as string).trim() : undefined;
  const keep = meta['keep-coding-instructions'];
  return {
    name: str('name') ?? basename(file, '.md'),
    description: str('description') ?? '',
    prompt,
    keepCodingInstructions: keep === true || keep === 'true',
    source,
    file,
  };
}

export interface OutputStyleDirs {
  cwd: string;
  /** --project-config-root */
  projectRoot?: string;
  env: NodeJS.ProcessEnv;
  sources: SettingSource[];
}

/** The style directories of the loaded setting sources, lowest precedence first. */
export function outputStyleDirs(o: OutputStyleDirs): Array<{ dir: string; source: 'project' | 'user' }> {
  const out: Array<{ dir: string; source: 'project' | 'user' }> = [];
  if (o.sources.includes('user'))
    out.push({
      dir: join(configDir(o.env), 'output-styles'),
      source: 'user',
    });
  if (o.sources.includes('project'))
    out.push({ dir: join(o.projectRoot ?? o.cwd, '.claude', 'output-styles'), source: 'project' });
  return out;
}

/** Every custom style (a project style wins over a user one of the same name); bad files are reported and skipped. */
export async function loadOutputStyles(o: OutputStyleDirs, warn: (msg: string) => void): Promise<OutputStyle[]> {
  const byName = new Map<string, OutputStyle>();
  let parse: ((t: string) => unknown) | undefined;
  for (const { dir, source } of outputStyleDirs(o)) {
    let files: string[];
    try {
      files = readdirSync(dir)
        .filter((f) => f.endsWith('.md'))
        .sort();
    } catch {
      continue;
    }
    for (const f of files) {
      const file = join(dir, f);
      try {
        parse ??= (await import('yaml')).parse;
        const style = parseOutputStyle(readFileSync(file, 'utf8'), file, source, parse);
        if (style.name === DEFAULT_OUTPUT_STYLE)
          throw new Error(`"${DEFAULT_OUTPUT_STYLE}" is the built-in style's name`);
        byName.set(style.name, style);
      } catch (err) {
        warn(`${file}: ${(err as Error).message}; the output style was skipped`);
      }
    }
  }
  return [...byName.values()];
}

/** The session's styles and the one in use. */
export class OutputStyleCatalog {
  private styles: OutputStyle[] = [];
  private active = DEFAULT_OUTPUT_STYLE;

  constructor(
    private readonly dirs: OutputStyleDirs,
    private readonly warn: (msg: string) => void,
  ) {}

  /** Read the directories again; the style in use stays if it still exists, else `default` (said on stderr). */
  async reload(): Promise<string[]> {
    this.styles = await loadOutputStyles(this.dirs, this.warn);
    if (this.active !== DEFAULT_OUTPUT_STYLE && !this.get(this.active)) {
      this.warn(`output style "${this.active}" no longer exists; using "${DEFAULT_OUTPUT_STYLE}"`);
      this.active = DEFAULT_OUTPUT_STYLE;
    }
    return this.names();
  }

  /** `default` first, then the built-in ones, then the custom ones by name. */
  names(): string[] {
    const builtin = BUILTINS.map((s) => s.name);
    return [
      DEFAULT_OUTPUT_STYLE,
      ...builtin,
      ...this.styles
        .map((s) => s.name)
        .filter((n) => !builtin.includes(n))
        .sort(),
    ];
  }

  /** A custom style, else the built-in one of that name. */
  get(name: string): OutputStyle | undefined {
    return this.styles.find((s) => s.name === name) ?? BUILTINS.find((s) => s.name === name);
  }

  /** Use `name` (the `outputStyle` setting). Throws, naming the styles there are, when it is unknown. */
  select(name: string): void {
    if (name !== DEFAULT_OUTPUT_STYLE && !this.get(name))
      throw new Error(`no output style "${name}" (there are: ${this.names().join(', ')})`);
    this.active = name;
  }

  get current(): string {
    return this.active;
  }

  /** The style in use, unless it is the built-in default. */
  currentStyle(): OutputStyle | undefined {
    return this.active === DEFAULT_OUTPUT_STYLE ? undefined : this.get(this.active);
  }
}
