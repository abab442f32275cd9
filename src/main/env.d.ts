// electron-vite's `?asset` imports: a file from resources/ shipped beside the main bundle, as its path.
/// <reference types="electron-vite/node" />
