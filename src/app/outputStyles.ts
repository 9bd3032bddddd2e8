// The session's output styles: the catalog of the setting sources' style folders, the one the
// `outputStyle` setting picks (an unknown name is told on stderr and `default` used), and a switch
// that keeps the system prompt and system/init's output_style in step.
import type { SystemPromptParts } from '../prompt/systemPrompt.js';
import type { LoadedSettings, SettingSource } from '../settings/index.js';
import { OutputStyleCatalog } from '../settings/outputStyles.js';
import { logWarning } from '../util/log.js';

export interface SessionOutputStyles {
  catalog: OutputStyleCatalog;
  /** Switch to `name` (throws for an unknown one); the next system prompt and init follow. */
  use(name: string): void;
}

export async function setupOutputStyles(
  loaded: LoadedSettings,
  ctx: {
    cwd: string;
    env: NodeJS.ProcessEnv;
    /** The config's setting sources: whose style folders are read. */
    sources: SettingSource[];
    /** The config's project root (--project-config-root resolved). */
    projectRoot: string;
    systemParts: SystemPromptParts;
    onChange: (name: string) => void;
  },
): Promise<SessionOutputStyles> {
  const catalog = new OutputStyleCatalog(
    { cwd: ctx.cwd, projectRoot: ctx.projectRoot, env: ctx.env, sources: ctx.sources },
    (m) => logWarning(`${m}`),
  );
  await catalog.reload();
  const wanted = (loaded.settings as Record<string, unknown>).outputStyle;
  if (typeof wanted === 'string' && wanted !== '') {
    try {
      catalog.select(wanted);
    } catch (err) {
      logWarning(`settings outputStyle: ${(err as Error).message}; using "default"`);
    }
  }
  const use = (name: string) => {
    catalog.select(name);
    ctx.systemParts.outputStyle = catalog.currentStyle();
    ctx.onChange(catalog.current);
  };
  use(catalog.current);
  return { catalog, use };
}
