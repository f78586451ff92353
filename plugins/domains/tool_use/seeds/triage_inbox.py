"""File system: read every message of an inbox and file or delete it by its content."""

from spade_domains.tool_use.episode import ToolEpisode
from spade_tools.filesystem import FileSystem

ENV_SPEC = {
    "name": "TriageInbox",
    "domain": "tool_use",
    "description": "Read the messages of a mail folder (file names say nothing), move the ones about a given "
                   "project into a project folder and delete the spam; scored by the final directory tree.",
    "reward_range": [0.0, 1.0],
    "max_turns": 45,
    "players": 1,
    "difficulty": {
        "messages": {"min": 3, "max": 14, "default": 6,
                     "description": "messages to read; more messages also bring look-alike project codes"},
    },
    "tools": ["pwd", "ls", "cd", "mkdir", "touch", "cat", "echo", "mv", "cp", "rm", "find", "grep"],
    "grounding": "Mail triage as filing work: read before you file, project codes as routing keys, and spam "
                 "removal; the file operations follow BFCL's GorillaFileSystem.",
    "tags": ["filesystem", "reading", "multi-turn", "state-equality"],
    "max_obs_chars": 16000,
}

PEOPLE = ["ana", "ben", "chloe", "dev", "emma", "farid", "grace", "hiro", "ines", "jonas", "kemal", "lea"]
DOMAINS = ["example.org", "contoso.com", "fabrikam.net", "northwind.io"]
TOPICS = [
    ("Budget review", "Please check the attached numbers for {code} before Friday."),
    ("Status update", "Milestone two of {code} is done; testing starts next week."),
    ("Design notes", "I added comments on the {code} mock-ups in the shared folder."),
    ("Meeting moved", "The {code} sync moves to Thursday 10:00, same room."),
    ("Question", "Who owns the data migration for {code}? I could not find it in the plan."),
]
OTHER = [
    ("Lunch on Friday?", "A few of us are going to the noodle place, join us."),
    ("Parking", "The garage is closed for cleaning on Monday."),
    ("Reminder: timesheets", "Please submit your timesheets by the end of the month."),
    ("Welcome Kai", "Kai joins the support team today; say hello."),
]
SPAM = [
    ("Spam: You won a cruise", "Click here to claim your free cruise today!"),
    ("Spam: Cheap watches", "Luxury watches at 90% off, limited offer."),
    ("Spam: Account suspended", "Verify your password at this totally real link."),
]
INBOX = "/mail/inbox"


class TriageInbox:
    def __init__(self, messages=6):
        self.messages = messages
        self.tree = {}
        self.episode = None

    def reset(self, rng, options):
        count = self.messages
        number = rng.randint(1000, 9899)
        code = f"PRJ-{number}"
        decoys = [f"PRJ-{number + rng.randint(1, 99)}"]
        if str(number)[::-1] != str(number):
            decoys.append(f"PRJ-{str(number)[::-1]}")
        spam_count = max(1, count // 4)
        project_count = max(1, (count - spam_count) // 2)
        kinds = ["spam"] * spam_count + ["project"] * project_count
        kinds = kinds + ["other"] * (count - len(kinds))
        rng.shuffle(kinds)
        inbox = {}
        project, spam = [], []
        for i, kind in enumerate(kinds):
            name = f"msg_{i + 1:02d}.txt"
            sender = f"{rng.choice(PEOPLE)}@{rng.choice(DOMAINS)}"
            if kind == "spam":
                subject, body = rng.choice(SPAM)
                spam.append(name)
            elif kind == "project":
                subject, body = rng.choice(TOPICS)
                body = body.replace("{code}", code)
                project.append(name)
            elif count >= 6 and rng.random() < 0.6:
                subject, body = rng.choice(TOPICS)
                body = body.replace("{code}", rng.choice(decoys))
            else:
                subject, body = rng.choice(OTHER)
            inbox[name] = f"From: {sender}\nSubject: {subject}\n\n{body}\n"
        folder = f"/mail/projects/{code.lower()}"
        self.tree = {"mail": {"inbox": inbox, "projects": {"archive.txt": "old project index"}}}
        reference = [{"name": "ls", "arguments": {"path": INBOX}}]
        for name in sorted(inbox):
            reference.append({"name": "cat", "arguments": {"file_name": f"{INBOX}/{name}"}})
        reference.append({"name": "mkdir", "arguments": {"dir_name": folder}})
        for name in project:
            reference.append({"name": "mv", "arguments": {"source": f"{INBOX}/{name}", "destination": folder}})
        for name in spam:
            reference.append({"name": "rm", "arguments": {"file_name": f"{INBOX}/{name}"}})
        task = (
            f"Triage the mail in {INBOX}. Every message that mentions project {code} (exactly that code) goes into "
            f"the folder {folder}, which you must create. Delete every message whose Subject line starts with "
            f"'Spam:'. Leave all other messages in the inbox and change nothing else. The file names say nothing "
            f"about the content, so read the messages."
        )
        self.episode = ToolEpisode(self._toolbox, reference, task, max_turns=ENV_SPEC["max_turns"])
        return self.episode.first_observation(), self.episode.reset_info()

    def _toolbox(self):
        return FileSystem(self.tree, cwd="/mail")

    def step(self, action):
        return self.episode.step(action)

    def privileged_hint(self):
        return (f"{self.episode.milestone_hint()} Some messages mention look-alike codes that differ by a digit "
                f"or two; only the exact code counts.")

    def reference_action(self):
        return self.episode.reference_action()
