import AsyncHTTPClient
import Courier
import Foundation
import NIOCore
import NIOPosix

/// Maps AsyncHTTPClient's and SwiftNIO's errors to the ``NetworkError`` cases
/// `URLSessionTransport` gives for the same failure.
enum ErrorClassifier {
    static func networkError(for error: any Error) -> NetworkError {
        switch error {
        case let error as NetworkError:
            return error
        case is CancellationError:
            return .cancelled
        case let error as IdleTimeout:
            return .timedOut(error)
        case let error as HTTPClientError:
            return classify(error)
        case let error as NIOConnectionError:
            // DNS failed when no address was tried; otherwise the last attempt says why.
            guard let attempt = error.connectionErrors.last?.error else { return .serverUnreachable(error) }
            return networkError(for: attempt)
        case let error as IOError:
            guard let code = POSIXErrorCode(rawValue: error.errnoCode) else { return .transport(error) }
            return NetworkError(transportError: POSIXError(code))
        case is SocketAddressError.UnknownHost, is SocketAddressError:
            return .serverUnreachable(error)
        case let error as ChannelError:
            return classify(error)
        case is UploadFailure:
            return .requestBuildFailed(error)
        default:
            return NetworkError(transportError: error)
        }
    }

    private static func classify(_ error: HTTPClientError) -> NetworkError {
        switch error {
        case .cancelled, .requestStreamCancelled:
            .cancelled
        case .connectTimeout, .readTimeout, .writeTimeout, .deadlineExceeded, .tlsHandshakeTimeout,
             .getConnectionFromPoolTimeout, .socksHandshakeTimeout, .httpProxyHandshakeTimeout:
            .timedOut(error)
        case .remoteConnectionClosed:
            .connectionLost(error)
        case .invalidURL, .emptyHost, .emptyScheme:
            .requestBuildFailed(error)
        default:
            .transport(error)
        }
    }

    private static func classify(_ error: ChannelError) -> NetworkError {
        switch error {
        case .connectTimeout:
            .timedOut(error)
        case .eof, .ioOnClosedChannel, .inputClosed, .outputClosed, .alreadyClosed:
            .connectionLost(error)
        default:
            .transport(error)
        }
    }
}
