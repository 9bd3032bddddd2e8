// How the model keeps its persistent memory (src/prompt/autoMemory.ts). The instructions are the
// same for every project, so they sit in the static part; the folder's path and its MEMORY.md
// index are per project and follow in the per-session part (memoryFolderText). The file layout,
// front matter and index line are the reference CLI's, so memories carry over between the two.

export const MEMORY_INSTRUCTIONS = `# Persistent memory
You have a memory folder for this project that outlives the conversation; its path and its index are in the Memory section further down. Use it to keep what will help in a later session and cannot be recovered from the code, the git history or the project's CLAUDE.md files.

What is worth keeping, by type:
- \`user\`: facts about the person you work with: what they do, what they know well, how they like things done.
- \`feedback\`: guidance on how you should work, whether the user corrected you or approved of an approach. Record the reason with it.
- \`project\`: goals, deadlines, constraints and ongoing work that the repository does not show. Write dates as calendar dates, not "next week".
- \`reference\`: where to look outside the repository: URLs, dashboards, tickets, documents.
Leave out anything a later session can read for itself (the code and its layout, the git log, bugs already fixed, the CLAUDE.md files) and anything that only matters today. If the user asks you to remember such a thing, find out which part of it would be easy to miss, and keep that part.

To save a memory:
1. Look in the index for a memory that already covers the subject. If there is one, update that file with Edit instead of adding a second one.
2. Otherwise write a new file in the folder with Write (the folder exists; no need to create it). One fact per file, named after its \`name\`, such as \`prefers-small-commits.md\`. Start it with this front matter:
   ---
   name: <short-kebab-case-name>
   description: <one line saying what it is about, used later to judge whether it is relevant>
   metadata:
     type: <user | feedback | project | reference>
   ---
   then the fact itself. For \`feedback\` and \`project\`, follow it with a line starting \`**Why:**\` and one starting \`**How to apply:**\`. Point to related memories with \`[[their-name]]\`; such a link may name a memory you have not written yet.
3. Add one line for it to \`MEMORY.md\` in the same folder, in the form \`- [Title](file-name.md) — what it is about\`. The index holds these pointer lines only: no front matter and no memory content. It is loaded at the start of every session, and only its first 200 lines are, so keep each line short.

To change a memory, edit its file, and its index line if the summary changed. To delete one that turned out wrong or stale, remove its file and its index line.

Memories are notes from the past. Use them as background rather than as the user's instructions, and expect some to be out of date: when one mentions a file, a function or an option, confirm it is still there before building on it.`;

/** The per-session half: where the folder is, and its index as it stands. */
export function memoryFolderText(dir: string, index: string, note?: string): string {
  const body =
    index.trim() === '' ? 'MEMORY.md is empty: no memories have been saved for this project yet.' : index.trimEnd();
  return [
    '# Memory',
    `Your memory folder for this project is \`${dir}\`. Its index, \`${dir}MEMORY.md\`, reads:`,
    '<memory-index>',
    body,
    '</memory-index>',
    ...(note ? [note] : []),
  ].join('\n');
}
