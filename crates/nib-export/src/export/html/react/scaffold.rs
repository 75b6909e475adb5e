//! The files that make a React export an app of its own: `package.json` with pinned versions,
//! `vite.config.ts`, `tsconfig.json`, `index.html` and `main.tsx`, so `npm install && npm run
//! dev` shows the pages (Vite, with Tailwind's Vite plugin compiling `tailwind.css`, whose
//! `@import "tailwindcss"` then resolves from the app's own `node_modules`). `main.tsx` finds
//! the pages itself (`import.meta.glob`), so it stays right when the design's pages change.

use std::fmt::Write;

/// The packages the app needs, at the versions its files were checked with (the browser check
/// builds the app with `tests/browser/package.json`, which pins the same ones; a suite test
/// holds the two together): `(name, version, needed at run time)`.
pub const PACKAGES: &[(&str, &str, bool)] = &[
    ("react", "19.3.1", true),
    ("react-dom", "19.3.1", true),
    ("@tailwindcss/vite", "4.3.5", false),
    ("@types/react", "19.3.3", false),
    ("@types/react-dom", "19.3.0", false),
    ("@vitejs/plugin-react", "6.3.1", false),
    ("tailwindcss", "4.3.5", false),
    ("typescript", "5.9.3", false),
    ("vite", "8.4.1", false),
];

/// The app's files for a design called `title`.
pub(crate) fn files(title: &str) -> Vec<(String, Vec<u8>)> {
    let name = package_name(title);
    let list = |runtime: bool| {
        PACKAGES
            .iter()
            .filter(|(_, _, r)| *r == runtime)
            .map(|(package, version, _)| format!("    \"{package}\": \"{version}\""))
            .collect::<Vec<_>>()
            .join(",\n")
    };
    let package = format!(
        "{{\n  \"name\": \"{name}\",\n  \"private\": true,\n  \"version\": \"0.0.0\",\n  \"type\": \"module\",\n  \"scripts\": {{\n    \"dev\": \"vite\",\n    \"build\": \"tsc -p tsconfig.json && vite build\",\n    \"preview\": \"vite preview\"\n  }},\n  \"dependencies\": {{\n{}\n  }},\n  \"devDependencies\": {{\n{}\n  }}\n}}\n",
        list(true),
        list(false)
    );
    let mut html = String::from(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n",
    );
    let _ = writeln!(html, "<title>{}</title>", crate::export::svg::escape(title));
    html.push_str(
        "</head>\n<body>\n<div id=\"root\"></div>\n<script type=\"module\" src=\"./main.tsx\"></script>\n</body>\n</html>\n",
    );
    vec![
        ("package.json".to_owned(), package.into_bytes()),
        ("vite.config.ts".to_owned(), VITE_CONFIG.as_bytes().to_vec()),
        ("tsconfig.json".to_owned(), TSCONFIG.as_bytes().to_vec()),
        ("index.html".to_owned(), html.into_bytes()),
        ("main.tsx".to_owned(), MAIN.as_bytes().to_vec()),
    ]
}

/// An npm package name from the design's title: lowercase letters, digits and dashes.
fn package_name(title: &str) -> String {
    let mut name = String::new();
    for c in title.chars() {
        if c.is_ascii_alphanumeric() {
            name.push(c.to_ascii_lowercase());
        } else if !name.is_empty() && !name.ends_with('-') {
            name.push('-');
        }
        if name.len() >= 60 {
            break;
        }
    }
    let name = name.trim_end_matches('-');
    if name.is_empty() { "design".to_owned() } else { format!("{name}-design") }
}

/// Vite with React and Tailwind; `base: "./"` so the built app opens from any folder.
const VITE_CONFIG: &str = "// Written by nib: the app that shows the exported pages (npm install && npm run dev).
import { defineConfig } from \"vite\";
import react from \"@vitejs/plugin-react\";
import tailwindcss from \"@tailwindcss/vite\";

export default defineConfig({
  base: \"./\",
  plugins: [react(), tailwindcss()],
});
";

/// TypeScript as strict as the export is checked with.
const TSCONFIG: &str = "{
  \"compilerOptions\": {
    \"target\": \"es2022\",
    \"lib\": [\"es2022\", \"dom\", \"dom.iterable\"],
    \"module\": \"esnext\",
    \"moduleResolution\": \"bundler\",
    \"jsx\": \"react-jsx\",
    \"strict\": true,
    \"noUnusedLocals\": true,
    \"noUnusedParameters\": true,
    \"isolatedModules\": true,
    \"skipLibCheck\": true,
    \"noEmit\": true,
    \"types\": [\"vite/client\"]
  },
  \"include\": [\"**/*.ts\", \"**/*.tsx\"],
  \"exclude\": [\"node_modules\", \"dist\"]
}
";

/// The first line of `main.tsx`: a folder whose `main.tsx` starts so holds an app nib wrote.
pub(crate) const MAIN_START: &str = "// Written by nib: shows the exported pages.";

/// Shows the page the address names (`#Landing`), else the first; `?mode=Dark` (any theme
/// prop) is given to it.
const MAIN: &str = "// Written by nib: shows the exported pages. #Name picks a page (the first by default);
// ?mode=Dark gives the page that theme prop.
import { StrictMode, type ComponentType } from \"react\";
import { createRoot } from \"react-dom/client\";
import \"./tailwind.css\";

const modules = import.meta.glob<Record<string, ComponentType<Record<string, string>>>>(\"./pages/*.tsx\", {
  eager: true,
});
const pages = Object.values(modules).flatMap((module) => Object.entries(module));

function show() {
  const wanted = decodeURIComponent(location.hash.slice(1));
  const [, Page] = pages.find(([name]) => name === wanted) ?? pages[0] ?? [];
  const props = Object.fromEntries(new URLSearchParams(location.search));
  root.render(<StrictMode>{Page ? <Page {...props} /> : <p>No pages: the design has components only.</p>}</StrictMode>);
}

const root = createRoot(document.getElementById(\"root\")!);
addEventListener(\"hashchange\", show);
show();
";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_package_name_is_npms() {
        assert_eq!(package_name("My Landing!"), "my-landing-design");
        assert_eq!(package_name("★"), "design");
    }

    #[test]
    fn every_version_is_pinned() {
        let files = files("x");
        let package: serde_json::Value = serde_json::from_slice(&files[0].1).expect("json");
        for (name, version, runtime) in PACKAGES {
            let group = if *runtime { "dependencies" } else { "devDependencies" };
            assert_eq!(package[group][name], *version);
            assert!(version.chars().all(|c| c.is_ascii_digit() || c == '.'), "{name} {version}");
        }
    }
}
