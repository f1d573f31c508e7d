/** Runs issues as its own process: `node services/issues/dist/main.js` (see @cairn/service). */
import { runStandalone } from '@cairn/service';
import { start } from './index';

runStandalone({ name: 'issues', needsDatabase: true, start });
