import fs from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { loadSettings, SettingsError } from '../../../src/settings/index.js';
import { makeTempDir } from '../../tempDirs.js';

let home: string;
let cwd: string;
let env: NodeJS.ProcessEnv;

function write(file: string, content: unknown) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
}
const userFile = () => path.join(home, 'settings.json');
const projectFile = () => path.join(cwd, '.claude', 'settings.json');
const localFile = () => path.join(cwd, '.claude', 'settings.local.json');

beforeEach(() => {
  const root = makeTempDir('settings-');
  home = path.join(root, 'config');
  cwd = path.join(root, 'proj');
  fs.mkdirSync(cwd, { recursive: true });
  env = { CLAUDE_CONFIG_DIR: home, HOME: path.join(root, 'nohome') };
});

describe('loadSettings', () => {
  it('missing files are fine', () => {
    const s = loadSettings({ cwd, env });
    expect(s.files).toEqual([]);
    expect(s.permissions).toEqual({ allow: [], deny: [], ask: [], additionalDirectories: [] });
  });

  it('unions rules across sources, local > project > user for plain keys, --settings on top; unknown keys kept', () => {
    write(userFile(), {
      model: 'user-model',
      permissions: { allow: ['Read'], defaultMode: 'plan' },
      env: { A: '1', B: '1' },
    });
    write(projectFile(), {
      model: 'project-model',
      permissions: { allow: ['Bash(npm test:*)'], deny: ['Read(./secret/**)'], defaultMode: 'acceptEdits' },
      env: { B: '2' },
    });
    write(localFile(), { permissions: { ask: ['Bash(git push:*)'], allow: ['Read'] } });
    const s = loadSettings({ cwd, env });
    expect(s.files.map((f) => f.source)).toEqual(['user', 'project', 'local']);
    expect(s.permissions.allow).toEqual(['Read', 'Bash(npm test:*)']);
    expect(s.permissions.deny).toEqual(['Read(./secret/**)']);
    expect(s.permissions.ask).toEqual(['Bash(git push:*)']);
    expect(s.permissions.defaultMode).toBe('acceptEdits');
    expect(s.settings.model).toBe('project-model');
    expect(s.settings.env).toEqual({ A: '1', B: '2' });

    const f = loadSettings({
      cwd,
      env,
      settingsArg: '{"model":"flag-model","permissions":{"defaultMode":"dontAsk","deny":["WebFetch"]}}',
    });
    expect(f.settings.model).toBe('flag-model');
    expect(f.permissions.defaultMode).toBe('dontAsk');
    expect(f.permissions.deny).toEqual(['Read(./secret/**)', 'WebFetch']);
  });

  it('honours sources: only the user file', () => {
    write(userFile(), { permissions: { allow: ['Read'] } });
    write(projectFile(), { permissions: { allow: ['Write'] } });
    expect(loadSettings({ cwd, env, sources: ['user'] }).permissions.allow).toEqual(['Read']);
    expect(loadSettings({ cwd, env, sources: [] }).permissions.allow).toEqual([]);
  });

  it('defaults the user file to ~/.claude/settings.json without CLAUDE_CONFIG_DIR', () => {
    const h = path.join(path.dirname(cwd), 'home');
    write(path.join(h, '.claude', 'settings.json'), { permissions: { allow: ['Glob'] } });
    expect(loadSettings({ cwd, env: { HOME: h } }).permissions.allow).toEqual(['Glob']);
  });

  it('hooks from every source are all kept', () => {
    const hook = (c: string) => ({ PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: c }] }] });
    write(userFile(), { hooks: hook('u') });
    write(projectFile(), { hooks: hook('p') });
    const s = loadSettings({ cwd, env });
    expect(s.hooks.PreToolUse.map((m) => m.hooks[0].command)).toEqual(['u', 'p']);
  });

  it('--settings FILE relative to cwd; a missing --settings file is an error', () => {
    write(path.join(cwd, 'extra.json'), { permissions: { allow: ['Edit'] } });
    expect(loadSettings({ cwd, env, settingsArg: 'extra.json' }).permissions.allow).toEqual(['Edit']);
    expect(() => loadSettings({ cwd, env, settingsArg: 'nope.json' })).toThrow(/nope\.json: cannot be read/);
  });

  it('invalid JSON names the file and the line', () => {
    write(projectFile(), '{\n  "permissions": {\n    "allow": ["Read",]\n  }\n}');
    let err: unknown;
    try {
      loadSettings({ cwd, env });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(SettingsError);
    expect((err as Error).message).toContain(`${projectFile()}: not valid JSON (`);
    expect((err as Error).message).toMatch(/line 3 column 22\)/);
  });

  it('schema errors name the file and the key', () => {
    write(localFile(), { permissions: { allow: 'Bash' } });
    expect(() => loadSettings({ cwd, env })).toThrow(`${localFile()}: permissions.allow must be an array of strings`);
    write(localFile(), { permissions: { deny: ['Read', 3] } });
    expect(() => loadSettings({ cwd, env })).toThrow('permissions.deny[1] must be a string');
    write(localFile(), { permissions: { defaultMode: 'yolo' } });
    expect(() => loadSettings({ cwd, env })).toThrow(/permissions\.defaultMode must be one of: default, acceptEdits/);
    write(localFile(), { hooks: { PreToolUse: [{ hooks: [{ type: 'command' }] }] } });
    expect(() => loadSettings({ cwd, env })).toThrow('hooks.PreToolUse[0].hooks[0].command must be');
    write(localFile(), [1]);
    expect(() => loadSettings({ cwd, env })).toThrow('the top level must be a JSON object');
    expect(() => loadSettings({ cwd, env: {}, sources: [], settingsArg: '{"permissions": []}' })).toThrow(
      '--settings: permissions must be an object',
    );
  });

  it('an empty file counts as no settings', () => {
    write(projectFile(), '  \n');
    expect(loadSettings({ cwd, env }).files.length).toBe(1);
  });
});
