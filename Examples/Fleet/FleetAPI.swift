import Courier
import CourierAuth
import Foundation

/// The endpoints a worker calls on the token server.
enum FleetAPI: TargetType, AccessTokenAuthorizable {
    case data(Int)
    case refresh(String)

    var baseURL: URL { FleetArguments.current.server }

    var path: String {
        switch self {
        case .data(let index): "/data/\(index)"
        case .refresh: "/token"
        }
    }

    var method: HTTPMethod {
        switch self {
        case .data: .get
        case .refresh: .post
        }
    }

    var task: RequestTask {
        switch self {
        case .data: .requestPlain
        case .refresh(let token): .requestData(Data("refresh_token=\(token)".utf8))
        }
    }

    var headers: [String: String]? { nil }

    var validationType: ValidationType { .successCodes }

    var authorizationType: AuthorizationType? {
        switch self {
        case .data: .bearer
        case .refresh: nil
        }
    }
}

/// The token server's answer to a refresh.
struct Tokens: Decodable {
    let access_token: String
    let refresh_token: String
    let expires_in: Double
}
