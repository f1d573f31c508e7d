/** Runs repos as its own process: `node services/repos/dist/main.js` (see @cairn/service). */
import { runStandalone } from '@cairn/service';
import { start } from './index';

runStandalone({ name: 'repos', needsDatabase: true, start });
