/** Entry point: reads the injected config and mounts the app. */
import { render } from "preact"
import { App } from "./App.js"
import { readConfig } from "./config.js"
import "./styles.css"

const root = document.getElementById("app")
if (root !== null) render(<App config={readConfig()} />, root)
