"""SQL table: create an enrolment table and fill it from a registrar's note, resolving student ids."""

from spade_domains.tool_use.episode import ToolEpisode
from spade_tools.sqltable import SqlDatabase

ENV_SPEC = {
    "name": "CourseEnrollment",
    "domain": "tool_use",
    "description": "Create a table with a given schema and insert one row per enrolment from a note, looking up "
                   "each student's id by name (and year, for namesakes); scored by the final tables.",
    "reward_range": [0.0, 1.0],
    "max_turns": 20,
    "players": 1,
    "difficulty": {
        "enrollments": {"min": 2, "max": 10, "default": 4,
                        "description": "enrolments to record; from 5 two students share a name and differ by year"},
    },
    "tools": ["list_tables", "create_table", "insert", "select", "update", "delete"],
    "grounding": "Relational data entry: a join table referencing a primary key, NULL for unknown values, and "
                 "disambiguating people by a second attribute.",
    "tags": ["sqlite", "database", "schema", "multi-turn", "state-equality"],
    "max_obs_chars": 16000,
}

FIRST = ["Alice", "Bruno", "Chen", "Dana", "Elif", "Femi", "Gita", "Hugo", "Ivy", "Jamal", "Kira", "Luca", "Mona",
         "Nils", "Omar", "Pia"]
LAST = ["Chen", "Okafor", "Silva", "Novak", "Haddad", "Larsen", "Moreau", "Tanaka", "Kowalski", "Reyes"]
COURSES = ["CS101", "CS240", "MATH201", "STAT210", "PHYS110", "ECON120", "HIST150", "BIO130"]
GRADES = [None, None, 2.0, 2.7, 3.0, 3.3, 3.7, 4.0]


class CourseEnrollment:
    def __init__(self, enrollments=4):
        self.enrollments = enrollments
        self.students = []
        self.episode = None

    def reset(self, rng, options):
        count = self.enrollments
        names = []
        while len(names) < 8:
            name = f"{rng.choice(FIRST)} {rng.choice(LAST)}"
            if name not in names:
                names.append(name)
        students = []
        next_id = rng.randint(1000, 1900)
        for name in names:
            next_id = next_id + rng.randint(1, 40)
            students.append({"id": next_id, "name": name, "year": rng.randint(1, 4)})
        if count >= 5:
            twin = students[rng.randint(0, 7)]
            next_id = next_id + rng.randint(1, 40)
            other_year = twin["year"] % 4 + 1
            students.append({"id": next_id, "name": twin["name"], "year": other_year})
        rng.shuffle(students)
        self.students = students
        namesakes = {}
        for s in students:
            namesakes[s["name"]] = namesakes.get(s["name"], 0) + 1
        rows = []
        lines = []
        pairs = []
        for _ in range(count):
            student = rng.choice(students)
            course = rng.choice(COURSES)
            while [student["id"], course] in pairs:
                student = rng.choice(students)
                course = rng.choice(COURSES)
            pairs.append([student["id"], course])
            grade = rng.choice(GRADES)
            who = student["name"] if namesakes[student["name"]] == 1 else f"{student['name']} (year {student['year']})"
            result = "grade pending" if grade is None else f"final grade {grade}"
            lines.append(f"  - {who} took {course}, {result}")
            rows.append({"student_id": student["id"], "course": course, "grade": grade})
        reference = [
            {"name": "select", "arguments": {"table": "students"}},
            {"name": "create_table", "arguments": {"table": "enrollments", "columns": {
                "student_id": "INTEGER", "course": "TEXT", "grade": "REAL"}}},
            {"name": "insert", "arguments": {"table": "enrollments", "rows": rows}},
        ]
        task = (
            "The registrar sent this note:\n" + "\n".join(lines) + "\n\n"
            "Create a table named enrollments with exactly these columns in this order: student_id INTEGER, "
            "course TEXT, grade REAL, and no primary key. Insert one row per line of the note: the student's id "
            "from the students table, the course code, and the grade (NULL when the grade is pending). Do not "
            "change the students table."
        )
        self.episode = ToolEpisode(self._toolbox, reference, task, max_turns=ENV_SPEC["max_turns"])
        return self.episode.first_observation(), self.episode.reset_info()

    def _toolbox(self):
        return SqlDatabase({"students": {
            "columns": {"id": "INTEGER", "name": "TEXT", "year": "INTEGER"},
            "primary_key": "id",
            "rows": self.students,
        }})

    def step(self, action):
        return self.episode.step(action)

    def privileged_hint(self):
        return (f"{self.episode.milestone_hint()} Look the ids up before inserting; one insert call can take "
                f"all the rows. A pending grade is null, not 0.")

    def reference_action(self):
        return self.episode.reference_action()
