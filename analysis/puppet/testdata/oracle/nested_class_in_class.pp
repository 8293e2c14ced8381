# A class in a class body is allowed (it is named outer::inner).
class outer { class inner { notify{'i':} } include outer::inner }
include outer
