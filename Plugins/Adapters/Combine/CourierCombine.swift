// CourierCombine: Combine publishers for Courier requests (see
// `Provider+Combine.swift`) and Moya's operators on publishers of responses
// (see `Publisher+Response.swift`). Combine on Apple platforms, OpenCombine
// elsewhere, re-exported: `import CourierCombine` is enough for `sink` and
// `AnyCancellable`. Where a file also imports Courier and names `Cancellable`,
// write `Courier.Cancellable` or `Combine.Cancellable`, as with Moya.

import Courier

#if !Combine
#error("CourierCombine needs the package trait \"Combine\": add it to the traits of your Courier dependency.")
#endif

#if canImport(Combine)
@_exported import Combine
#else
@_exported import OpenCombine
#endif
