// todo-service: the Todo REST API (Examples/TodoService/README.md, docs/servers.md).
// Reads its configuration from the environment and the command line, then runs until
// SIGTERM or SIGINT, when it finishes the requests under way and closes the store.
import Foundation
import Logging
import TodoService

let logger = {
    var logger = Logger(label: "todo-service")
    logger.logLevel = ProcessInfo.processInfo.environment["LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .info
    return logger
}()

let configuration: TodoConfiguration
do {
    configuration = try TodoConfiguration(environment: ProcessInfo.processInfo.environment,
                                          arguments: Array(CommandLine.arguments.dropFirst()))
} catch {
    FileHandle.standardError.write(Data("todo-service: \(error)\n".utf8))
    exit(64)
}

do {
    let app = try TodoApp(configuration: configuration, logger: logger) { port in
        logger.info("listening", metadata: ["address": "http://\(configuration.host):\(port)/todos"])
    }
    try await app.serviceGroup(gracefulShutdownSignals: [.sigterm, .sigint]).run()
} catch {
    FileHandle.standardError.write(Data("todo-service: \(error)\n".utf8))
    exit(1)
}
