package scan

import (
	"strings"
	"sync"
)

// Typosquatting: a package name one edit away from a popular one, named
// where a package is installed or chosen. The list holds widely used
// packages of the main ecosystems; a name on the list is never flagged.

var popularPackages = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, p := range strings.Fields(`
requests numpy pandas scipy matplotlib django flask fastapi pydantic sqlalchemy pytest setuptools urllib3 certifi idna
colorama boto3 botocore pyyaml jinja2 click rich httpx aiohttp pillow tensorflow torch keras transformers scikit-learn
python-dateutil dateutil six attrs packaging cryptography paramiko psycopg2 psycopg2-binary pymongo redis celery gunicorn
uvicorn beautifulsoup4 lxml openai anthropic langchain tqdm simplejson docutils pygments wheel virtualenv poetry black ruff
mypy isort flake8 pylint selenium openpyxl xlrd jsonschema tornado werkzeug markupsafe itsdangerous protobuf grpcio
lodash express react react-dom vue angular axios moment chalk commander debug typescript webpack babel-core eslint prettier
jest mocha chai underscore jquery request async bluebird uuid dotenv mongoose socket.io body-parser cors yargs minimist
next nuxt vite rollup esbuild tslib rxjs core-js classnames prop-types redux styled-components node-fetch cross-env
nodemon fs-extra glob semver inquirer ws jsonwebtoken bcrypt passport sequelize knex pg mysql mysql2 sqlite3 nanoid
serde tokio reqwest clap rand regex anyhow thiserror hyper actix-web rocket diesel chrono log env_logger tracing syn quote
cobra viper logrus zap testify gin echo gorm pgx grpc mux chi urfave
rails rake bundler nokogiri devise rspec sidekiq puma
`) {
		m[p] = true
	}
	return m
})

// installCue precedes a package name being installed or chosen.
var installCues = []string{"pip install ", "pip3 install ", "npm install ", "npm i ", "yarn add ", "pnpm add ", "go get ", "cargo add ", "gem install ",
	"poetry add ", "uv add ", "uv pip install ", "conda install ", "install ", "use the ", "use "}

// genericCues need the name quoted or called a package ("use the
// colourama package"), since "use" and "install" precede all sorts of
// words.
var genericCues = map[string]bool{"install ": true, "use the ": true, "use ": true}

var packageNouns = map[string]bool{"package": true, "packages": true, "library": true, "lib": true, "module": true, "crate": true, "gem": true, "instead": true, "fork": true}

// typosquat returns the view span of a package name one edit away from a
// popular package, named after an install cue.
func typosquat(v string) (int, int, bool) {
	for _, cue := range installCues {
		for pos := 0; pos < len(v); {
			k := strings.Index(v[pos:], cue)
			if k < 0 {
				break
			}
			a := pos + k + len(cue)
			pos = a
			if pos-len(cue) > 0 && isWordByte(v[pos-len(cue)-1]) {
				continue
			}
			ws := strings.Fields(v[a:min(len(v), a+80)])
			for j, w := range ws[:min(4, len(ws))] {
				if strings.HasPrefix(w, "-") {
					continue // a flag
				}
				name := strings.Trim(w, "`'\",.;:()")
				if i := strings.IndexAny(name, "=<>@["); i > 0 {
					name = name[:i]
				}
				if genericCues[cue] && !strings.HasPrefix(w, "`") && !(j+1 < len(ws) && packageNouns[strings.Trim(ws[j+1], ",.;:")]) {
					break
				}
				if len(name) >= 5 && !popularPackages()[name] {
					for p := range popularPackages() {
						if len(p) >= 5 && oneEdit(name, p) {
							s := a + strings.Index(v[a:], name)
							return s, s + len(name), true
						}
					}
				}
				break
			}
		}
	}
	return 0, 0, false
}

// oneEdit reports whether a and b differ by exactly one insertion,
// deletion, substitution or transposition of adjacent bytes.
func oneEdit(a, b string) bool {
	if a == b {
		return false
	}
	la, lb := len(a), len(b)
	switch {
	case la == lb:
		i := 0
		for i < la && a[i] == b[i] {
			i++
		}
		if a[i+1:] == b[i+1:] {
			return true // substitution
		}
		return i+1 < la && a[i] == b[i+1] && a[i+1] == b[i] && a[i+2:] == b[i+2:] // transposition
	case la == lb+1:
		return deletion(a, b)
	case lb == la+1:
		return deletion(b, a)
	}
	return false
}

// deletion reports whether removing one byte of long gives short.
func deletion(long, short string) bool {
	i := 0
	for i < len(short) && long[i] == short[i] {
		i++
	}
	return long[i+1:] == short[i:]
}
