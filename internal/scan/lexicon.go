package scan

// The scored detector's vocabulary, one list per feature. Entries are
// written in lowercase; the matcher folds look-alike letters the same way
// as the view, so they match Cyrillic/Greek/fullwidth disguises too.
//
// Syntax of an entry: words separated by single spaces; a trailing '*' on
// the last word matches any word starting with it ("ignor*" matches
// "ignore", "ignoring", "ignorez"). Entries in scripts written without
// spaces between words (Chinese, Japanese, Thai) or with attached
// prefixes and suffixes (Korean, Arabic, Hebrew, Persian, Hindi) match as
// substrings of the sentence instead.
//
// The lists cover English and, for the override, secret, exfiltration and
// concealment features, about twenty other languages: French, Spanish,
// Italian, Portuguese, German, Dutch, Swedish/Norwegian/Danish, Polish,
// Czech, Turkish, Russian/Ukrainian, Greek, Chinese, Japanese, Korean,
// Hindi, Arabic, Hebrew, Persian, Indonesian/Malay and Vietnamese.

// lexOverride: verbs that drop or replace what the agent was told.
var lexOverride = []string{
	"ignor*", "disregard*", "forget*", "forgot", "overlook*", "discard*", "set aside", "put aside", "pay no attention", "stop following",
	"stop obeying", "stop listening", "no longer follow", "bypass*", "circumvent*", "override", "overrides", "overriding", "abandon*", "drop all", "drop your",
	"drop the", "drop them", "throw out", "scrap", "skip your", "nullif*", "supersed*", "replace your", "replaces your",
	"do not follow", "don't follow", "dont follow", "never follow", "not follow", "instead of following", "rather than what", "rather than your",
	// fr
	"oubli*", "ignorez", "ignore", "fais abstraction", "ne tiens pas compte", "ne tenez pas compte", "laisse tomber", "écarte*",
	// es/pt/it
	"olvid*", "omit*", "descart*", "haz caso omiso", "haga caso omiso", "esqueç*", "esquec*", "desconsider*", "dimentic*", "trascur*", "tralascia*", "non considerare",
	// de/nl/scandinavian
	"vergiss", "vergessen", "missacht*", "übergeh*", "negeer*", "vergeet", "vergeten", "glöm", "glem", "bortse fra", "se bort fra", "ignorera", "ignorer",
	// pl/cs/tr
	"zignoruj*", "ignoruj*", "zapomnij", "pomiń", "ignorujte", "zapomeň*", "yok say", "görmezden gel", "unut",
	// ru/uk/el
	"игнорир*", "проигнорир*", "забуд*", "не обращай", "не обращайте", "отбрось*", "ігноруй*", "забудь", "αγνόησ*", "αγνοήστε", "ξέχασ*", "ξεχάστε",
	// id/ms/vi
	"abaikan", "lupakan", "bỏ qua", "quên", "phớt lờ",
	// substring scripts
	"忽略", "忽视", "忽視", "无视", "無視", "忘记", "忘記", "忘掉", "不要理会", "不要理會", "跳过", "無視して", "忘れ", "무시", "잊어", "잊고",
	"अनदेखा", "नज़रअंदाज़", "नजरअंदाज", "भूल जा", "भूल जाओ", "تجاهل", "انس ", "تناسى", "התעלם", "שכח", "نادیده بگیر", "فراموش کن",
}

// lexInstr: what the agent was told.
var lexInstr = []string{
	"instruction*", "directive*", "direction*", "guidance", "guideline*", "rules", "rule", "orders", "prompt*", "system message", "programming",
	"configuration", "constraints", "restrictions", "policy", "policies", "what you were told", "what you've been told", "what you have been told",
	"everything you were told", "everything above", "everything before", "all of the above", "the above", "safety", "guardrails", "principles", "training",
	"consigne*", "règle*", "regle*", "indicaci*", "instrucci*", "directric*", "reglas", "órdenes", "ordenes", "istruzion*", "regole", "indicazion*",
	"instruç*", "instruc*", "orientaç*", "diretriz*", "regras", "anweisung*", "vorgabe*", "regeln", "befehl*", "instructies", "regels", "instruktion*",
	"polecen*", "instrukcj*", "pokyn*", "talimat*", "kural*", "инструкци*", "указани*", "правил*", "команд*", "οδηγί*", "εντολ*", "instruksi", "arahan",
	"hướng dẫn", "chỉ dẫn", "chỉ thị", "指令", "指示", "说明", "規則", "规则", "提示", "命令", "設定", "设定", "지시", "명령", "지침", "निर्देश",
	"التعليمات", "الأوامر", "التوجيهات", "ההוראות", "הוראות", "دستورالعمل", "دستورات",
}

// lexPrior: "previous", "earlier", "so far".
var lexPrior = []string{
	"previous", "previously", "prior", "earlier", "above", "before this", "before", "original", "initial", "old", "existing", "current", "so far",
	"until now", "up to now", "at the start", "you were given", "you received", "you got", "you were told", "given to you", "from the developer",
	"précédent*", "antérieur*", "ci-dessus", "jusqu'ici", "avant", "anterior*", "previas", "previos", "precedent*", "hasta ahora", "recibidas",
	"dadas", "ricevute", "finora", "acima", "recebidas", "vorherig*", "bisherig*", "obig*", "vorige*", "zuvor", "vorher", "eerdere", "vorige",
	"tidigare", "tidligere", "poprzedni*", "wcześniejsz*", "předchozí*", "önceki", "предыдущ*", "прежн*", "раньше", "ранее", "попередн*",
	"προηγούμεν*", "παραπάνω", "sebelumnya", "trước đó", "trước", "之前", "以前", "先前", "上面", "上述", "此前", "これまで", "以前の", "上記",
	"이전", "पिछल", "السابقة", "הקודמות", "קודמות", "قبلی",
}

// lexObsolete: the agent's instructions are declared void.
var lexObsolete = []string{
	"no longer appl*", "no longer valid", "no longer in effect", "obsolete", "outdated", "void", "revoked", "cancelled", "canceled", "suspended",
	"lifted", "superseded", "were a test", "was a test", "don't apply", "do not apply", "not apply", "replaced by this", "are invalid", "is invalid",
	"null and void", "expired",
}

// lexAgent: words naming the agent being addressed.
var lexAgent = []string{
	"assistant", "assistants", "ai", "a.i.", "agent", "agents", "llm", "llms", "language model", "the model", "model:", "chatbot", "bot", "chatgpt", "gpt",
	"claude", "copilot", "gemini", "odek", "you", "your", "yourself",
	"assistente", "asistente", "assistent", "ассистент", "модель", "ии", "助手", "助理", "模型", "アシスタント", "モデル", "어시스턴트", "모델",
}

// lexNewRules: a new regime starts.
var lexNewRules = []string{
	"new rule", "new rules", "new orders", "new task", "new instructions", "new directive", "new behaviour", "new behavior", "new policy", "new goal",
	"real task", "true task", "real instructions", "true instructions", "real purpose", "only goal", "sole purpose", "your real", "your true",
	"your new", "from now on", "from here on", "from this moment", "from this point", "henceforth", "going forward you", "hidden task",
	"secret task", "à partir de maintenant", "desde ahora", "a partir de ahora", "d'ora in poi", "ab jetzt", "von nun an", "с этого момента",
	"отныне", "从现在开始", "今後は", "지금부터",
}

// lexSecret: things an attacker wants sent out.
var lexSecret = []string{
	"secret*", "credential*", "api key*", "api-key*", "apikey*", "api token*", "token*", "password*", "passwd", "passphrase*", "passcode*",
	"private key*", "ssh key*", "access key*", "session cookie*", "cookie*", ".env", "env file", "environment variables", "env vars", "~/.ssh",
	".ssh", "id_rsa", "id_ed25519", "~/.aws", ".aws", "aws keys", "aws credentials", ".netrc", ".npmrc", ".git-credentials",
	"system prompt", "shell history", "bash_history", "keychain", "wallet", "seed phrase", "private files",
	"database", "your database", "employee data", "customer data", "user data", "users' data", "personal data", "datos de los empleados",
	"datos personales", "données personnelles", "personenbezogene daten", "dati personali", "dados pessoais",
	"contraseña*", "mot de passe", "mots de passe", "clé*", "clave*", "claves", "chiave*", "senha*", "passwort*", "zugangsdaten", "schlüssel*",
	"wachtwoord*", "sleutel*", "lösenord*", "passord*", "hasł*", "hesl*", "şifre*", "пароль*", "пароли", "ключ*", "учетн*", "κωδικ*",
	"kata sandi", "kunci rahasia", "mật khẩu", "密码", "密碼", "密钥", "密鑰", "秘密", "パスワード", "キー", "비밀번호", "암호", "पासवर्ड",
	"كلمات المرور", "كلمة المرور", "סיסמ", "رمز عبور",
}

// lexExfil: verbs that move data out or show it.
var lexExfil = []string{
	"send*", "sent", "confirm", "email*", "e-mail*", "mail", "post", "posts", "upload*", "leak*", "exfiltrat*", "forward*", "paste*", "copy", "copies", "transmit*",
	"reveal*", "print*", "dump*", "show", "display*", "output", "share", "disclose*", "expose*", "include", "append*", "prefix", "insert", "attach*",
	"envoie*", "envoyez", "révèle*", "affiche*", "envía*", "envia*", "muestra*", "revela*", "invia*", "mostra*", "rivela*", "schick*", "sende*",
	"zeig*", "gib", "geben", "geb", "donne*", "dame", "dammi", "dê", "give", "tell me", "stuur", "skicka", "send", "wyślij", "pošlete", "pošli", "gönder*", "göster*", "отправ*", "покажи*", "пришли*", "στείλ*", "δείξ*",
	"kirim*", "tampilkan", "gửi", "发给", "发送", "告诉我", "显示", "送って", "表示", "教えて", "알려", "보내", "बताओ", "भेज", "أرسل", "ارسل", "שלח", "بفرست",
}

// lexSink: where data goes.
var lexSink = []string{
	"clipboard", "pastebin", "paste bin", "gist", "webhook", "to me", "for me", "give me", "send me", "tell me", "show me", "mir", "moi", "me lo", "私に", "나에게", "给我", "告诉我", "to this address", "to this url", "to the following", "external",
	"à cette adresse", "a esta dirección", "a este correo", "an mich", "an diese adresse", "na ten adres", "на этот адрес", "给我", "발송",
}

// lexConceal: keep the person from knowing.
var lexConceal = []string{
	"don't tell", "do not tell", "dont tell", "never tell", "don't mention", "do not mention", "never mention", "don't let the user", "do not let the user",
	"don't let them", "without telling", "without asking", "without informing", "without notifying", "without the user knowing", "keep it quiet",
	"keep this quiet", "keep this secret", "keep this hidden", "keep it secret", "quietly", "silently", "secretly", "covertly", "stealthily",
	"never warn", "don't warn", "do not warn", "do not show them", "don't show them", "do not show the user", "never saw this", "hide this from",
	"hide it from", "hide from the user", "not tell the person", "not tell the user", "never tell the person", "don't tell reviewers",
	"ne dis rien", "ne le dis pas", "sans le dire", "no le digas", "sin decirle", "non dirlo", "senza dirlo", "não diga", "sag nichts", "ohne es",
	"niets zeggen", "nie mów", "неговор", "не говори", "не сообщай", "不要告诉", "不要告訴", "言わないで", "말하지 마", "मत बताना", "لا تخبر",
}

// lexPerson: the person the agent works for.
var lexPerson = []string{"user", "users", "the person", "the human", "the operator", "the owner", "reviewer*", "them", "anyone", "utilisateur",
	"usuario", "utente", "usuário", "benutzer", "nutzer", "gebruiker", "użytkownik", "kullanıcı", "пользовател*", "用户", "用戶", "ユーザー", "사용자"}

// lexDeceive: change what the agent tells the person.
var lexDeceive = []string{
	"tell the user", "tell them", "tell the person", "tell the human", "tell everyone", "say that", "say you", "reply to every", "respond to every",
	"answer every", "reply only with", "respond only with", "answer only with", "reply with", "respond with", "fake", "pretend", "claim that",
	"report that", "everything is fine", "all tests pass", "the build passed", "as if", "lie to",
}

// lexPersona: a new identity without limits.
var lexPersona = []string{
	"you are no longer", "you're no longer", "you are now", "you're now", "adopt the persona", "act as", "pretend to be", "roleplay as",
	"unrestricted", "no rules", "no restrictions", "no limits", "no limitations", "without any safety", "without any restrictions", "without restrictions",
	"without limits", "without safety", "jailbr*", "dan mode", "you are dan", "as dan", "developer mode", "god mode", "do anything now", "no filter*", "uncensored", "unfiltered",
}

// lexPrivilege: claims of authority or lifted checks.
var lexPrivilege = []string{
	"root access", "full access", "admin access", "authorized", "authorised", "authorize", "authorise", "authorizes", "authorises", "permitted", "granted", "allowed to", "without confirmation",
	"without review", "without waiting", "must not refuse", "never refuse", "do not refuse", "don't refuse", "comply with any",
	"any request", "approve its own", "approve your own", "merge without", "skip asking", "skips asking", "no confirmation",
}

// lexDestructive: harmful actions.
var lexDestructive = []string{
	"rm -rf", "rm -fr", "delete the", "delete all", "wipe", "drop table", "drop database", "force-push", "force push", "push --force",
	"disable tls", "disable ssl", "disable verification", "disable tls verification", "verify=false", "--insecure", "-k ", "authorized_keys",
	"reverse shell", "chmod 777", "nc -e", "/dev/tcp/", "mkfifo", "crontab", "cron job", "backdoor", "keylogger",
}

// lexRun: verbs that make the agent act.
var lexRun = []string{
	"run", "runs", "execute*", "exec", "eval", "install*", "invoke*", "launch*", "open", "start", "call", "pipe", "source", "download*",
	"exécute*", "ejecuta*", "esegui*", "führe", "ausführen", "uitvoeren", "uruchom*", "выполни*", "запусти*", "执行", "運行", "运行", "実行", "실행",
}

// lexModal: a duty aimed at the agent ("the assistant must", "you should").
var lexModal = []string{"must", "should", "shall", "have to", "has to", "need to", "needs to", "are required", "is required", "always", "every",
	"before every", "before any", "at the start of", "each time", "whenever"}
