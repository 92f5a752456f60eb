import AsyncHTTPClient
import Courier
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

extension AsyncHTTPClientTransport {
    /// AsyncHTTPClient's and SwiftNIO's errors in Foundation's words (a
    /// `URLError` or `POSIXError` with the original attached), so the transfer
    /// stage classifies them as it classifies `URLSession`'s.
    static func foundationError(for error: any Error) -> any Error {
        switch error {
        case let error as HTTPClientError:
            return urlError(for: error).map { URLError($0, userInfo: [NSUnderlyingErrorKey: error]) } ?? error
        case let error as NIOConnectionError:
            // DNS failed when no address was tried; otherwise the last attempt says why.
            guard let attempt = error.connectionErrors.last?.error else {
                return URLError(.cannotFindHost, userInfo: [NSUnderlyingErrorKey: error])
            }
            return foundationError(for: attempt)
        case let error as IOError:
            return POSIXErrorCode(rawValue: error.errnoCode).map { POSIXError($0) } ?? error
        case is SocketAddressError:
            return URLError(.cannotFindHost, userInfo: [NSUnderlyingErrorKey: error])
        case let error as ChannelError:
            switch error {
            case .connectTimeout: return URLError(.timedOut, userInfo: [NSUnderlyingErrorKey: error])
            case .eof, .ioOnClosedChannel, .inputClosed, .outputClosed, .alreadyClosed:
                return URLError(.networkConnectionLost, userInfo: [NSUnderlyingErrorKey: error])
            default: return error
            }
        case HTTPParserError.invalidEOFState:
            // The connection closed before the message ended: a chunked body
            // cut short, which only its missing end shows.
            return URLError(.networkConnectionLost, userInfo: [NSUnderlyingErrorKey: error])
        case is HTTPParserError:
            return URLError(.cannotParseResponse, userInfo: [NSUnderlyingErrorKey: error])
        default:
            return error
        }
    }

    private static func urlError(for error: HTTPClientError) -> URLError.Code? {
        switch error {
        case .cancelled, .requestStreamCancelled: .cancelled
        case .connectTimeout, .readTimeout, .writeTimeout, .deadlineExceeded, .tlsHandshakeTimeout,
             .getConnectionFromPoolTimeout, .socksHandshakeTimeout, .httpProxyHandshakeTimeout: .timedOut
        case .remoteConnectionClosed, .bodyLengthMismatch: .networkConnectionLost
        case .invalidURL, .emptyHost, .emptyScheme: .unsupportedURL
        case .identityCodingIncorrectlyPresent: .cannotParseResponse
        default: nil
        }
    }
}
