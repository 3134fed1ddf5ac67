"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
const core_1 = require("@nestjs/core");
const app_module_1 = require("./app.module");
const app_setup_1 = require("./app.setup");
const settings_1 = require("./settings/settings");
const config_sources_1 = require("./tools/config/config.sources");
const config_service_1 = require("./tools/config/config.service");
async function bootstrap() {
    const app = await core_1.NestFactory.create(app_module_1.AppModule, { bufferLogs: true, abortOnError: false });
    (0, app_setup_1.configureApp)(app);
    await app.init();
    const { host, port } = app.get(config_service_1.ConfigService).listenAddress();
    await app.listen(port, host).catch((error) => {
        throw error.code === 'EADDRINUSE' ? new Error(`${host}:${port} is already in use`) : error;
    });
}
function startupFailure(error) {
    if (error instanceof settings_1.SettingsError || error instanceof config_sources_1.ConfigSourceError)
        return error.message;
    if (error instanceof Error && /is already in use$/.test(error.message))
        return error.message;
    return error instanceof Error ? (error.stack ?? error.message) : String(error);
}
bootstrap().catch((error) => {
    process.stderr.write(`Start-up failed: ${startupFailure(error)}\n`);
    process.exit(1);
});
//# sourceMappingURL=main.js.map