// Types for folderGraph.mjs, which test/unit/layering.test.ts imports.
export declare const ROOT: string;
export declare function sourceFiles(dir: string): string[];
export declare function importsOf(file: string, text: string): string[];
export declare function fileGraph(): Map<string, string[]>;
export declare const under: (path: string, folder: string) => boolean;
export declare function folderOf(path: string): string | undefined;
export declare function folderGraph(files?: Map<string, string[]>): Map<string, Set<string>>;
export declare function forbiddenChains(files: Map<string, string[]>, folder: string, forbidden: string[]): string[][];
export declare function mermaid(graph: Map<string, Set<string>>, layers?: Array<[string, string[]]>): string;
export declare const LAYERS: Array<[string, string[]]>;
export declare function layerGraph(
  folders: Map<string, Set<string>>,
  layers?: Array<[string, string[]]>,
): Map<string, Set<string>>;
