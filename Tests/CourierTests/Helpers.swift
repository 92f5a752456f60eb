import Courier
import CourierTestSupport
import Foundation
import Testing

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
