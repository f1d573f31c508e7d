/** Runs accounts as its own process: `node services/accounts/dist/main.js` (see @cairn/service). */
import { runStandalone } from '@cairn/service';
import { start } from './index';

runStandalone({ name: 'accounts', needsDatabase: true, start });
