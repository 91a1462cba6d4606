/** @type {import('next').NextConfig} */
const nextConfig = {
  serverExternalPackages: ["better-sqlite3", "pg", "kysely"],
  poweredByHeader: false,
  reactStrictMode: true,
};

export default nextConfig;
