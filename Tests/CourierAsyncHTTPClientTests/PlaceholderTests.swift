import CourierAsyncHTTPClient
import Testing

@Test func placeholderAsyncHTTPClientLinks() {}
