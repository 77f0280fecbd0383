/// <reference types="vite/client" />

/** What the server writes into index.html about where the console is mounted. */
interface SwitchyardRuntimeConfig {
  basePath?: string;
}

interface Window {
  __SWITCHYARD__?: SwitchyardRuntimeConfig;
}
