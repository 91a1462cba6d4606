// Types of .dependency-cruiser.mjs for tests/unit/architecture.test.ts, which reads its layers and rules.
import type { IConfiguration } from "dependency-cruiser";

export interface Layer {
  row: string;
  members: string[];
  peersMayImport?: boolean;
}
export interface Rule {
  name: string;
  comment: string;
  severity: "error";
  from: { path?: string };
  to: { path?: string; pathNot?: string; circular?: boolean; couldNotResolve?: boolean };
}
export declare const LAYERS: readonly Layer[];
export declare const DATA_LAYERS: readonly Layer[];
declare const config: { forbidden: Rule[]; options: IConfiguration["options"] };
export default config;
