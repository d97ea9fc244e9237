import Foundation
import NIOCore
import NIOPosix
import NIOSSL

/// After the server's certificate failed verification (BoringSSL only says "certificate verify
/// failed"): connects once more, asks for TLS as a PostgreSQL client does, records the
/// certificates the server presents without trusting them, and ends the handshake. What they
/// hold tells which check failed (``PostgresCertificateProbe/diagnose(presented:authorities:authorityFile:)``).
enum PostgresCertificateProbe {
    /// PostgreSQL's SSLRequest: length 8, then the code 1234.5679.
    private static let sslRequestCode: Int32 = 80_877_103

    /// The chain the server at `host:port` presents (leaf first), or nil when it could not be had.
    static func presentedChain(
        host: String, port: Int, group: any EventLoopGroup, bridge: PostgresBlockingBridge, limit: TimeAmount
    ) -> [NIOSSLCertificate]? {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.certificateVerification = .none
        guard let context = try? NIOSSLContext(configuration: configuration) else { return nil }
        let promise = group.next().makePromise(of: [NIOSSLCertificate].self)
        let connected = ClientBootstrap(group: group)
            .connectTimeout(limit)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(SSLRequestHandler(context: context, chain: promise))
                }
            }
            .connect(host: host, port: port)
        connected.whenFailure { promise.fail($0) }
        // A handshake that ends before the chain arrives closes the channel: stop waiting then.
        connected.whenSuccess { channel in channel.closeFuture.whenComplete { _ in promise.fail(ChannelError.alreadyClosed) } }
        defer { connected.whenSuccess { $0.close(promise: nil) } }
        return try? bridge.wait(for: promise.futureResult, atMost: limit)
    }

    /// Which check the presented chain (leaf first) fails against `authorities` (the
    /// certificates of `sslrootcert`, nil for the system's), with a sentence saying so.
    static func diagnose(
        presented: [NIOSSLCertificate], authorities: [NIOSSLCertificate]?, authorityFile: String?, now: Date = .now
    ) -> (PostgresTLSError, String) {
        let time = time_t(now.timeIntervalSince1970)
        for certificate in presented {
            if certificate.notValidAfter < time {
                return (PostgresTLSError(.certificateExpired), "The server's certificate \(name(certificate)) expired on \(date(certificate.notValidAfter)). Renew it on the server (ssl_cert_file), or check this machine's clock.")
            }
            if certificate.notValidBefore > time {
                return (PostgresTLSError(.certificateNotYetValid), "The server's certificate \(name(certificate)) is valid only from \(date(certificate.notValidBefore)). Check this machine's clock.")
            }
        }
        guard let last = presented.last else {
            return (PostgresTLSError(.certificateRejected), "The server presented no certificate.")
        }
        let issuer = last.issuerName
        guard let authorities else {
            return (PostgresTLSError(.unknownCertificateAuthority), "The server's certificate \(name(presented[0])) was signed by \(describe(issuer)), which this system does not trust. Give that authority's certificate as sslrootcert=PATH.")
        }
        let file = authorityFile.map { "sslrootcert=\($0)" } ?? "sslrootcert"
        let matching = authorities.filter { $0.subjectName == issuer || presented.contains($0) }
        guard !matching.isEmpty else {
            let held = authorities.map { describe($0.subjectName) }.joined(separator: ", ")
            return (PostgresTLSError(.unknownCertificateAuthority, file: authorityFile), "The server's certificate \(name(presented[0])) was signed by \(describe(issuer)), and \(file) holds another authority (\(held)). Give the certificate of the authority that signed the server's certificate.")
        }
        if let expired = matching.first(where: { $0.notValidAfter < time }) {
            return (PostgresTLSError(.certificateExpired, file: authorityFile), "The authority \(name(expired)) in \(file) expired on \(date(expired.notValidAfter)). Renew the authority and the certificates it signed, or check this machine's clock.")
        }
        if let early = matching.first(where: { $0.notValidBefore > time }) {
            return (PostgresTLSError(.certificateNotYetValid, file: authorityFile), "The authority \(name(early)) in \(file) is valid only from \(date(early.notValidBefore)). Check this machine's clock.")
        }
        return (PostgresTLSError(.certificateRejected, file: authorityFile), "The server's certificate \(name(presented[0])) names \(describe(issuer)) as its authority, as \(file) does, but its signature or use does not check out. Make the server's certificate again with that authority.")
    }

    private static func name(_ certificate: NIOSSLCertificate) -> String {
        "\"\(describe(certificate.subjectName))\""
    }

    private static func describe(_ name: [SSLCertificateName]) -> String {
        let common = name.filter { $0.type == .commonName }.map(\.value)
        return common.isEmpty ? name.map(\.value).joined(separator: ", ") : common.joined(separator: ", ")
    }

    private static func date(_ time: time_t) -> String {
        Date(timeIntervalSince1970: TimeInterval(time)).formatted(.iso8601)
    }

    /// Sends the SSLRequest; on the server's "S", starts a TLS handshake that records the
    /// presented chain and refuses it (so the connection ends at once).
    private final class SSLRequestHandler: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer

        private let context: NIOSSLContext
        private let chain: EventLoopPromise<[NIOSSLCertificate]>

        init(context: NIOSSLContext, chain: EventLoopPromise<[NIOSSLCertificate]>) {
            self.context = context
            self.chain = chain
        }

        func channelActive(context: ChannelHandlerContext) {
            var request = context.channel.allocator.buffer(capacity: 8)
            request.writeInteger(Int32(8))
            request.writeInteger(PostgresCertificateProbe.sslRequestCode)
            context.writeAndFlush(wrapOutboundOut(request), promise: nil)
            context.fireChannelActive()
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            var answer = unwrapInboundIn(data)
            guard answer.readInteger(as: UInt8.self) == UInt8(ascii: "S") else {
                chain.fail(ChannelError.inappropriateOperationForState)
                context.close(promise: nil)
                return
            }
            let chain = self.chain
            do {
                let record: NIOSSLCustomVerificationCallback = { certificates, verification in
                    chain.succeed(certificates)
                    verification.succeed(NIOSSLVerificationResult.failed)
                }
                let handler = try NIOSSLClientHandler(context: self.context, serverHostname: nil, customVerificationCallback: record)
                try context.pipeline.syncOperations.addHandler(handler, position: .before(self))
                context.pipeline.syncOperations.removeHandler(self, promise: nil)
            } catch {
                chain.fail(error)
                context.close(promise: nil)
            }
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            chain.fail(error)
            context.close(promise: nil)
        }

        func channelInactive(context: ChannelHandlerContext) {
            chain.fail(ChannelError.alreadyClosed)
            context.fireChannelInactive()
        }
    }
}
