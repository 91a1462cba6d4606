import nextVitals from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";

const config = [
  ...nextVitals,
  ...nextTs,
  { ignores: [".next/**", ".worker/**", "node_modules/**", "data/**", "test-results/**", "test-results-postgres/**", "playwright-report/**", "playwright-report-postgres/**", "next-env.d.ts"] },
];

export default config;
