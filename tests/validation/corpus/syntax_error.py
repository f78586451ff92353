# expect: structure
ENV_SPEC = {"name": "Broken", "domain": "math"
class Broken:
    def reset(self, rng, options)
        return "", {}
