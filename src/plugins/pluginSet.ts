// The session's plugins: the folders named at start (--plugin-dir, --plugin-dir-no-mcp, the SDK's
// `plugins`) and those reload_plugins adds. At start a broken plugin stops the session (nothing
// runs without the hooks or rules it ships); on reload a broken one is counted and told, and the
// version loaded before stays, so a typo in a file never drops a plugin's hooks in silence.
import { resolve } from 'node:path';
import { loadPlugin, type LoadedPlugin, type PluginSpec } from './load.js';
import { PluginError } from './manifest.js';

export interface PluginReload {
  plugins: LoadedPlugin[];
  /** The specs the reload would keep (the old ones and the added ones that loaded). */
  specs: PluginSpec[];
  errors: string[];
}

export class PluginSet {
  private specs: PluginSpec[] = [];
  private loaded: LoadedPlugin[] = [];

  constructor(
    private readonly cwd: string,
    private readonly warn: (m: string) => void,
  ) {}

  /** Load these at start; throws PluginError on the first broken one (or two plugins of one name). */
  async add(specs: PluginSpec[]): Promise<void> {
    for (const spec of specs) {
      const p = await loadPlugin(spec, this.cwd);
      const twin = this.loaded.find((x) => x.name === p.name);
      if (twin && twin.path !== p.path)
        throw new PluginError(`two plugins are named "${p.name}": ${twin.path} and ${p.path}`);
      if (twin) continue; // the same folder named twice
      for (const w of p.warnings) this.warn(`plugin ${p.name}: ${w}`);
      this.specs.push(spec);
      this.loaded.push(p);
    }
  }

  /** Whether a folder is among the loaded ones (initialize's plugins_applied). */
  has(path: string): boolean {
    const abs = resolve(this.cwd, path);
    return this.loaded.some((p) => p.path === abs);
  }

  /** Read every plugin again (and the added ones) without applying: the caller commits or drops it. */
  async prepareReload(added: PluginSpec[] = []): Promise<PluginReload> {
    const plugins: LoadedPlugin[] = [];
    const specs: PluginSpec[] = [];
    const errors: string[] = [];
    const known = new Set(this.specs.map((s) => resolve(this.cwd, s.path)));
    const fresh = added.filter((s) => !known.has(resolve(this.cwd, s.path)));
    for (const spec of [...this.specs, ...fresh]) {
      const before = this.loaded.find((p) => p.path === resolve(this.cwd, spec.path));
      let p: LoadedPlugin;
      try {
        p = await loadPlugin(spec, this.cwd);
        const twin = plugins.find((x) => x.name === p.name);
        if (twin) throw new PluginError(`two plugins are named "${p.name}": ${twin.path} and ${p.path}`);
      } catch (err) {
        if (!(err instanceof PluginError)) throw err;
        errors.push(err.message);
        // A plugin that loaded before keeps its last good version; a new one is not added.
        if (before) {
          plugins.push(before);
          specs.push(spec);
        }
        continue;
      }
      errors.push(...p.warnings.map((w) => `plugin ${p.name}: ${w}`));
      plugins.push(p);
      specs.push(spec);
    }
    return { plugins, specs, errors };
  }

  commit(reload: PluginReload): void {
    this.loaded = reload.plugins;
    this.specs = reload.specs;
  }

  list(): LoadedPlugin[] {
    return this.loaded;
  }
}
