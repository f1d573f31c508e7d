/** Runs git-storage as its own process: `node services/git-storage/dist/main.js` (see @cairn/service). */
import { runStandalone } from '@cairn/service';
import { start } from './index';

runStandalone({ name: 'git-storage', needsDatabase: true, start });
