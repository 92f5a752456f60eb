print("CustomPlugin: coming with the plugins issue")
