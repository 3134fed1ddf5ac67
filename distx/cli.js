"use strict";
var __createBinding = (this && this.__createBinding) || (Object.create ? (function(o, m, k, k2) {
    if (k2 === undefined) k2 = k;
    var desc = Object.getOwnPropertyDescriptor(m, k);
    if (!desc || ("get" in desc ? !m.__esModule : desc.writable || desc.configurable)) {
      desc = { enumerable: true, get: function() { return m[k]; } };
    }
    Object.defineProperty(o, k2, desc);
}) : (function(o, m, k, k2) {
    if (k2 === undefined) k2 = k;
    o[k2] = m[k];
}));
var __setModuleDefault = (this && this.__setModuleDefault) || (Object.create ? (function(o, v) {
    Object.defineProperty(o, "default", { enumerable: true, value: v });
}) : function(o, v) {
    o["default"] = v;
});
var __decorate = (this && this.__decorate) || function (decorators, target, key, desc) {
    var c = arguments.length, r = c < 3 ? target : desc === null ? desc = Object.getOwnPropertyDescriptor(target, key) : desc, d;
    if (typeof Reflect === "object" && typeof Reflect.decorate === "function") r = Reflect.decorate(decorators, target, key, desc);
    else for (var i = decorators.length - 1; i >= 0; i--) if (d = decorators[i]) r = (c < 3 ? d(r) : c > 3 ? d(target, key, r) : d(target, key)) || r;
    return c > 3 && r && Object.defineProperty(target, key, r), r;
};
var __importStar = (this && this.__importStar) || (function () {
    var ownKeys = function(o) {
        ownKeys = Object.getOwnPropertyNames || function (o) {
            var ar = [];
            for (var k in o) if (Object.prototype.hasOwnProperty.call(o, k)) ar[ar.length] = k;
            return ar;
        };
        return ownKeys(o);
    };
    return function (mod) {
        if (mod && mod.__esModule) return mod;
        var result = {};
        if (mod != null) for (var k = ownKeys(mod), i = 0; i < k.length; i++) if (k[i] !== "default") __createBinding(result, mod, k[i]);
        __setModuleDefault(result, mod);
        return result;
    };
})();
Object.defineProperty(exports, "__esModule", { value: true });
exports.CliModule = void 0;
exports.buildCli = buildCli;
exports.runCli = runCli;
require("reflect-metadata");
const common_1 = require("@nestjs/common");
const core_1 = require("@nestjs/core");
const commander_1 = require("commander");
const api_keys_service_1 = require("./auth/api-keys.service");
const auth_module_1 = require("./auth/auth.module");
const scopes_1 = require("./auth/scopes");
const logging_module_1 = require("./logging/logging.module");
const settings_module_1 = require("./settings/settings.module");
const store_module_1 = require("./store/store.module");
const doctor_module_1 = require("./tools/doctor/doctor.module");
const doctor_service_1 = require("./tools/doctor/doctor.service");
let CliModule = class CliModule {
};
exports.CliModule = CliModule;
exports.CliModule = CliModule = __decorate([
    (0, common_1.Module)({ imports: [settings_module_1.SettingsModule, logging_module_1.StderrLogCoreModule, store_module_1.StoreModule, auth_module_1.KeysModule, doctor_module_1.DoctorModule] })
], CliModule);
function wholeNumber(min) {
    return (raw) => {
        if (!/^\d+$/.test(raw) || Number(raw) < min)
            throw new commander_1.InvalidArgumentError(`expected a whole number >= ${min}`);
        return Number(raw);
    };
}
async function withContext(work) {
    const app = await core_1.NestFactory.createApplicationContext(CliModule, {
        logger: false,
        abortOnError: false,
    });
    try {
        return await work(app);
    }
    finally {
        await app.close();
    }
}
const out = (line) => {
    process.stdout.write(`${line}\n`);
};
function buildCli() {
    const program = new commander_1.Command('cli').description('Operator commands for the tool invocation service');
    program.exitOverride();
    const keys = program.command('keys').description('Create, list and revoke API keys');
    keys
        .command('create')
        .description('Create an API key; its text is printed once')
        .requiredOption('--name <name>', 'a name to recognise the key by')
        .addOption(new commander_1.Option('--scopes <list>', 'comma-separated scopes').conflicts('template'))
        .option('--template <name>', 'scope template: read_only, standard or admin')
        .option('--plan <plan>', 'plan: free, pro or unlimited')
        .option('--daily-limit <n>', "calls per UTC day, beating the plan's", wholeNumber(0))
        .option('--rate-limit <n>', "calls per second, beating the plan's", wholeNumber(1))
        .option('--expires-in-days <n>', 'days until the key expires', wholeNumber(1))
        .option('--json', 'print one JSON object')
        .action(async (opts) => {
        const scopes = opts.scopes
            ?.split(',')
            .map((s) => s.trim())
            .filter(Boolean);
        const bad = scopes?.filter((s) => !(0, scopes_1.isValidScope)(s)) ?? [];
        if (bad.length)
            throw new api_keys_service_1.KeyRequestError(`Unknown scope(s): ${bad.join(', ')}`);
        const { key, record } = await withContext((app) => app.get(api_keys_service_1.ApiKeysService).create({
            name: opts.name,
            scopes,
            scope_template: opts.template,
            plan: opts.plan,
            daily_limit: opts.dailyLimit,
            rate_limit: opts.rateLimit,
            expires_in_days: opts.expiresInDays,
        }));
        if (opts.json)
            return out(JSON.stringify({ ...(0, api_keys_service_1.toView)(record), key }));
        out(`Created ${record.id} (${record.name}), scopes ${record.scopes.join(',')}, plan ${record.plan}.`);
        out(`Key (shown once, store it now): ${key}`);
    });
    keys
        .command('list')
        .description('List keys (never their text)')
        .option('--json', 'print a JSON array')
        .action(async (opts) => {
        const views = await withContext(async (app) => (await app.get(api_keys_service_1.ApiKeysService).list()).map((r) => (0, api_keys_service_1.toView)(r)));
        if (opts.json)
            return out(JSON.stringify(views));
        if (!views.length)
            return out('No keys.');
        for (const v of views) {
            out([v.id, v.prefix + '...', v.status, v.plan, v.scopes.join(','), v.name].join('\t'));
        }
    });
    keys
        .command('revoke <id>')
        .description('Revoke a key: from now on it gets 401')
        .action(async (id) => {
        const revoked = await withContext((app) => app.get(api_keys_service_1.ApiKeysService).revoke(id));
        if (!revoked)
            throw new api_keys_service_1.KeyRequestError(`API key not found: ${id}`);
        out(`Revoked ${id}.`);
    });
    program
        .command('doctor')
        .description('Run the health checks; exit 1 when any fails (for deploy pipelines)')
        .option('--fix', 'fix what is fixable, then check again')
        .option('--json', 'print the report as JSON')
        .action(async (opts) => {
        const report = await withContext((app) => app.get(doctor_service_1.DoctorService).run(Boolean(opts.fix)));
        if (opts.json)
            out(JSON.stringify(report));
        else {
            for (const c of report.checks) {
                out(`${c.status.toUpperCase().padEnd(4)}  ${c.name.padEnd(18)} ${c.message}${c.fixable ? ' (fixable: --fix)' : ''}`);
            }
        }
        if (report.has_failures)
            process.exitCode = 1;
    });
    program
        .command('mcp')
        .description('Serve the tools over MCP on stdin/stdout for a local agent, as one key (same quota and rate limit)')
        .addOption(new commander_1.Option('--key <key>', 'the API key to act as (needs services:execute)').env('MCP_API_KEY'))
        .action(async (opts) => {
        if (!opts.key)
            throw new api_keys_service_1.KeyRequestError('An API key is required: --key or MCP_API_KEY');
        const { serveMcpOverStdio } = await Promise.resolve().then(() => __importStar(require('./mcp/mcp.stdio')));
        await serveMcpOverStdio(opts.key);
    });
    return program;
}
async function runCli(argv) {
    try {
        await buildCli().parseAsync(argv, { from: 'user' });
        return 0;
    }
    catch (error) {
        const e = error;
        if (typeof e.code === 'string' && e.code.startsWith('commander.')) {
            return e.code === 'commander.helpDisplayed' || e.code === 'commander.version' ? 0 : 2;
        }
        process.stderr.write(`error: ${e.message ?? String(error)}\n`);
        return 1;
    }
}
if (require.main === module) {
    void runCli(process.argv.slice(2)).then((code) => {
        process.exitCode = process.exitCode || code;
    });
}
//# sourceMappingURL=cli.js.map