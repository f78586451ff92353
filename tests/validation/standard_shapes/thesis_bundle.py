# shape: multi-step state change checked by the final state (a new folder, renamed copies, a manifest, one stale file removed; "change nothing else")
"""File system: assemble a thesis submission folder from the latest final version of each chapter."""

from spade_domains.tool_use.episode import ToolEpisode
from spade_tools.filesystem import FileSystem

ENV_SPEC = {
    "name": "ThesisSubmissionBundle",
    "domain": "tool_use",
    "description": "Build a thesis submission folder: for every chapter pick the highest-numbered version whose "
                   "header says it is final (drafts above it must be skipped), copy it under a fixed new name, "
                   "write a manifest in chapter order and delete a stale partial upload; scored by the whole "
                   "final file tree (originals untouched).",
    "reward_range": [0.0, 1.0],
    "max_turns": 40,
    "players": 1,
    "difficulty": {
        "chapters": {"min": 3, "max": 7, "default": 4,
                     "description": "chapters to bundle (one cp each, more versions to open); from 4 a stale "
                                    "partial upload in the outbox to delete, from 6 a chapter whose two newest "
                                    "versions are both drafts"},
    },
    "tools": ["pwd", "ls", "cd", "mkdir", "touch", "cat", "echo", "mv", "cp", "rm", "find", "grep"],
    "grounding": "Preparing a thesis for a graduate school's submission portal: chapters kept as numbered drafts, "
                 "only approved (final) versions submitted, a manifest listing what was sent.",
    "tags": ["filesystem", "multi-step", "state-equality", "change-nothing-else"],
    "max_obs_chars": 16000,
}

STUDENTS = ["amara", "bjorn", "chen", "dalia", "emeka", "farah", "goran", "hana", "ines", "jonas"]
TITLES = ["Introduction", "Related Work", "Methods", "Data", "Experiments", "Results", "Discussion",
          "Limitations", "Case Study", "Conclusion", "Background", "Evaluation"]
WORDS = ["sample", "model", "bias", "corpus", "signal", "estimate", "field", "survey", "trial", "network"]


class ThesisBundle:
    def __init__(self, chapters=4):
        self.chapters = chapters
        self.student = ""
        self.book = []
        self.tree = {}
        self.episode = None

    @staticmethod
    def _file(chapter, version):
        return f"ch{chapter['number']}_v{version}.tex"

    @staticmethod
    def _chosen(chapter):
        return max(v for v, final, _ in chapter["versions"] if final)

    def _toolbox(self):
        return FileSystem(self.tree, cwd=f"/home/{self.student}")

    def _make_book(self, rng):
        titles = rng.sample(TITLES, self.chapters)
        book = []
        deep = rng.randrange(self.chapters) if self.chapters >= 6 else -1
        shallow = rng.randrange(self.chapters)
        for i, title in enumerate(titles):
            top = rng.randint(1, 4)
            good = top
            if i == deep:
                top = max(top, 3)
                good = top - 2
            elif i == shallow or rng.random() < 0.3:
                top = max(top, 2)
                good = rng.randint(1, top - 1)
            chapter = {"number": i + 1, "title": title, "versions": []}   # versions: [version, is_final, text]
            for v in range(1, top + 1):
                final = v <= good and (v == good or rng.random() < 0.7)
                status = "final" if final else "draft - do not submit"
                body = " ".join(rng.choice(WORDS) for _ in range(6))
                text = f"% status: {status}\n\\chapter{{{title}}} % v{v}\n{body}."
                chapter["versions"].append((v, final, text))
            book.append(chapter)
        return book

    def reset(self, rng, options):
        self.student = rng.choice(STUDENTS)
        due = f"2025-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
        self.book = self._make_book(rng)
        home = f"/home/{self.student}"
        thesis = {self._file(ch, v): text for ch in self.book for v, _, text in ch["versions"]}
        thesis["figures"] = {f"fig{k}.png": f"png bytes {rng.randint(1000, 9999)}" for k in range(1, 4)}
        thesis["notes.md"] = "Supervisor: mark a version final in its first line once approved."
        outbox = {"portal_instructions.txt": "Upload the folder ~/submission."}
        stale = self.chapters >= 4
        if stale:
            outbox["submission.zip.part"] = "interrupted upload"
        self.tree = {"home": {self.student: {"thesis": thesis, "outbox": outbox}}}

        reference = [{"name": "ls", "arguments": {"path": f"{home}/thesis"}}]
        for ch in self.book:
            for v, final, _ in sorted(ch["versions"], reverse=True):
                reference.append({"name": "cat", "arguments": {"file_name": f"{home}/thesis/{self._file(ch, v)}"}})
                if final:
                    break
        reference.append({"name": "mkdir", "arguments": {"dir_name": f"{home}/submission"}})
        manifest = []
        for ch in self.book:
            src = self._file(ch, self._chosen(ch))
            reference.append({"name": "cp", "arguments": {"source": f"{home}/thesis/{src}",
                                                          "destination": f"{home}/submission/chapter{ch['number']}.tex"}})
            manifest.append(f"chapter{ch['number']}.tex <- {src}")
        reference.append({"name": "echo", "arguments": {"content": "\n".join(manifest),
                                                        "file_name": f"{home}/submission/MANIFEST.txt"}})
        if stale:
            reference.append({"name": "rm", "arguments": {"file_name": f"{home}/outbox/submission.zip.part"}})
        task = (
            f"You are helping {self.student} submit a {self.chapters}-chapter thesis due on {due}. The drafts are in "
            f"{home}/thesis, named chN_vM.tex (chapter N, version M). The first line of each file says "
            f"'% status: final' or '% status: draft - do not submit'. Create the folder {home}/submission and, "
            f"for every chapter N, copy into it the HIGHEST version of that chapter whose status is final, "
            f"naming the copy chapterN.tex. Then write {home}/submission/MANIFEST.txt with one line per chapter "
            f"in chapter order, each 'chapterN.tex <- chN_vM.tex' (the source file name), lines separated by a "
            f"single newline and no trailing newline."
            + (f" Finally delete the interrupted upload {home}/outbox/submission.zip.part." if stale else "")
            + " Keep every original file where it is and change nothing else."
        )
        self.episode = ToolEpisode(self._toolbox, reference, task, max_turns=ENV_SPEC["max_turns"])
        return self.episode.first_observation(), self.episode.reset_info()

    def step(self, action):
        return self.episode.step(action)

    def privileged_hint(self):
        return (f"{self.episode.milestone_hint()} Open each chapter's versions from the newest down and stop at "
                f"the first one whose first line says final; the newest file is not always the one to submit. "
                f"Copy (do not move) and rename in the same cp call.")

    def reference_action(self):
        return self.episode.reference_action()
