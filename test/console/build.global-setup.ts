import { buildWithConsole } from '../support/build.global-setup';

/** globalSetup of `npm run test:console`: the console the browser loads is built from console/ as it is. */
export default buildWithConsole;
