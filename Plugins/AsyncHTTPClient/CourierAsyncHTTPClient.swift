import Courier

#if !AsyncHTTPClient
#error("CourierAsyncHTTPClient needs the package trait \"AsyncHTTPClient\": add it to the traits of your Courier dependency.")
#endif

/// Placeholder until this product lands.
enum CourierAsyncHTTPClientPlaceholder {}
