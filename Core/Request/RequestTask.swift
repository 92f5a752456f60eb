import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Parameters for a ``ParameterEncoding``: strings, numbers, booleans, arrays
/// and nested dictionaries of those.
public typealias Parameters = [String: any Sendable]

/// What a request carries. Every case of Moya's `Task`, under a name that does
/// not shadow Swift's `Task`.
public enum RequestTask: Sendable {
    /// No body and no extra parameters.
    case requestPlain

    /// A raw body, sent as it is.
    case requestData(Data)

    /// An `Encodable` value as a JSON body (`Content-Type: application/json`),
    /// encoded with a default `JSONEncoder`.
    case requestJSONEncodable(any Encodable & Sendable)

    /// An `Encodable` value as a JSON body, encoded with `encoder`.
    case requestCustomJSONEncodable(any Encodable & Sendable, encoder: JSONEncoder)

    /// Parameters written by `encoding`: into the query string
    /// (``URLEncoding``), or as a JSON (``JSONEncoding``) or form body.
    case requestParameters(parameters: Parameters, encoding: any ParameterEncoding)

    /// A raw body plus parameters in the query string.
    case requestCompositeData(bodyData: Data, urlParameters: Parameters)

    /// Body parameters written by `bodyEncoding`, plus parameters in the query
    /// string.
    case requestCompositeParameters(
        bodyParameters: Parameters,
        bodyEncoding: any ParameterEncoding,
        urlParameters: Parameters
    )

    /// The contents of a file as the body, streamed from disk.
    case uploadFile(URL)

    /// A body read from an `AsyncSequence` while it is sent, with a known
    /// length or chunked: see ``RequestBodyStream`` for how each transport
    /// sends it and what happens when it would have to be sent again.
    ///
    /// ```swift
    /// case .upload(let recording): .uploadStream(RequestBodyStream(recording.chunks, length: .unknown))
    /// ```
    case uploadStream(RequestBodyStream)

    /// A `multipart/form-data` body. Bodies larger than
    /// ``MultipartFormData/defaultMemoryThreshold`` are written to a temporary
    /// file and streamed from it rather than built in memory.
    case uploadMultipart([MultipartFormBodyPart])

    /// A `multipart/form-data` body plus parameters in the query string.
    case uploadCompositeMultipart([MultipartFormBodyPart], urlParameters: Parameters)

    /// A `multipart/form-data` body from a ``MultipartFormData`` (its parts,
    /// boundary and memory threshold), as Moya writes it.
    case uploadMultipartFormData(MultipartFormData)

    /// A ``MultipartFormData`` body plus parameters in the query string.
    case uploadCompositeMultipartFormData(MultipartFormData, urlParameters: Parameters)

    /// Downloads the response body to a file that `destination` chooses. The
    /// body streams to disk and is never held in memory.
    case downloadDestination(DownloadDestination)

    /// Like ``downloadDestination(_:)``, with parameters written by `encoding`.
    case downloadParameters(parameters: Parameters, encoding: any ParameterEncoding, destination: DownloadDestination)
}

extension RequestTask {
    /// The download destination, for the two download cases.
    var downloadDestination: DownloadDestination? {
        switch self {
        case .downloadDestination(let destination), .downloadParameters(_, _, let destination): destination
        default: nil
        }
    }
}
